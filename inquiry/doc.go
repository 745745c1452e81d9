// Package inquiry is the domain of the inquiry bot: one question put to a person while a run is
// in flight, and the answer routed back by the inquiry's id.
//
// It owns the types (Inquiry, Answer, Record, Run, Delivery, Token), the rules (Validate,
// CheckAnswer), the one reading of an answer every layer uses (DefaultAnswerFor, AnsweredWith,
// IsDeclined, CapAnswer, StateAnswerOf, Chosen, Render), the one error vocabulary (Error, Code,
// ErrUnavailable, ErrDeclined, Fatal), the transport registry, the store contract, and the
// policy-driven ask service with its run semantics. It imports only the standard library;
// adapters (storage, slackapp, gateway, scheduler) import it, never the other way round.
//
// # The inquiry state machine
//
//	                 ask (policy ask)
//	                        │
//	                        ▼
//	  ┌───────────────── pending ─────────────────┬──────────────┐
//	  │ a person answers   │ expires_at passes     │ asker cancels │ transport fails for good
//	  │ before expires_at  │ (whoever looks first: │               │ (channel gone, token revoked)
//	  │ (first one wins),  │  a read, a list, a    │               │
//	  │ or the run's       │  long-poll, an answer,│               │
//	  │ caller resumes it  │  a run's ask, the     │               │
//	  │                    │  sweeper)             │               │
//	  ▼                    ▼                       ▼               ▼
//	answered            expired                cancelled         failed
//	source: person      source: expired         no answer        failure: inquiry_unavailable
//	  (or caller)       the default, or                          (fatal)
//	                    declined: true
//
//	ask (policy default) ──► answered, source: default (nobody asked; the assumption is recorded)
//	ask (policy refuse)  ──► nothing stored; the ask fails with inquiry_declined (not fatal)
//
// Every arrow out of pending is one conditional update: the first resolution wins and every later
// one gets already_resolved. A resolved inquiry never changes again — but for a note of why its
// callback was given up (failure: callback_failed, beside the answer).
//
// Expiry is exact: from expires_at on, nobody's answer is a person's. Whatever looks at a pending
// inquiry past its expiry resolves it as expired then (Service.current), with the very resolution
// the sweeper makes — its message update, callbacks and the parked run's answer enqueued in the
// same transaction — so that work happens once, whoever got there first; a long-poll wakes at
// expires_at. The sweeper expires the rest, the inquiries nobody looks at.
//
// Who may answer: a Slack user among the answerers (anybody when none are named); through the API
// a token with the answer scope (MayAnswer) — never the token that asked (an agent does not
// approve its own question; the operator's admin token excepted), and one bound to a namespace
// (bot token create --namespace) only there. What a run's caller hands back through resume is
// labelled source: caller with the caller's token, never person; it resolves the run's pending
// inquiry like an answer, and is refused (already_resolved) where it contradicts a resolved one.
//
// Deadlines (deadline.go) happen while pending, never after: a pending inquiry's next reminder
// or escalation step is due at Progress.Next (NextDue, a pure function of the record); the sweeper
// claims it (Store.ClaimDeadlines, SKIP LOCKED), and in that transaction advances the counters,
// appends reminded or escalated, and enqueues what shows it. An escalation step widens who may
// answer (Answerers: slack.answerers and each step's answerers). Extend moves expires_at — and
// with it the reminders, which count back from it — under the row's lock, by at most extend.max in
// all; it is recorded as extended.
//
// # The run state machine
//
//	    register / ask / heartbeat
//	             │
//	             ▼
//	┌──────► running ──────── heartbeat older than BOT_STALE_AFTER (sweeper) ──► abandoned
//	│         │   │
//	│         │   └── finish {status} ──► completed | failed | abandoned
//	│         │
//	│         │ ask: nobody answered within wait
//	│         ▼
//	│      waiting ── its inquiry resolves: the answer is recorded in the state and the
//	│         │       resume_url is called (the run stays waiting: it has no process)
//	│         │
//	└─────────┘ resume {answers}, or a re-entering ask that finds its answer in the state
//
// A waiting run is not stale: it has no process by design, and no sweep may touch it.
//
// # Thread replies
//
// A reply in a Slack thread (channel C, thread_ts T) may answer a pending inquiry posted in that
// thread, and only such an inquiry:
//
//	thread T in channel C
//	├── root message T ............ an inquiry posted as it (slack.ts = T), or a person's message
//	├── inquiry A  (slack.thread_ts = T, posted)
//	├── a person's talk
//	├── inquiry B  (slack.thread_ts = T, posted)   ◄── newest
//	└── the reply ──► pending in T, newest first (created_at, key): B, A, [root]
//	                    │
//	                    ├── none pending ───────────────► nothing: talk in a thread is just talk
//	                    ├── the person may answer none ─► ephemeral: the newest one's refusal
//	                    └── the newest they may answer ─► Service.Answer, judged against it alone
//	                          ├── taken, and others still wait in T ─► ephemeral: which question it
//	                          │     answered (quoted, linked) and that the others still wait
//	                          ├── taken, the only one ───────────────► no ephemeral
//	                          └── none of its offered answers ──────► ephemeral naming its answers
//
// An inquiry not posted yet, resolved, or posted in another thread or channel is never answered
// by the reply. Bot messages and edits answer nothing. The newest 20 pending of a thread are
// weighed (the store's PendingInThread, through three indexes: the thread of a message an
// escalation step posted answers its inquiry too); with several pending, the
// sentence for an invalid reply also names the question it was read for.
//
// # Asking inside a run
//
// Run.Ask has exactly three outcomes, in order: (1) the state already holds an answer for this
// inquiry id — return it, a question is never asked twice; (2) a live channel answers within the
// wait — record StateAnswerOf(CapAnswer(answer)) and return the full capped answer; (3) nobody
// answered in time — the run parks waiting on the inquiry.
//
// # Answer links
//
// A link (link.go) is a signed token of one inquiry, for one recipient or for anybody who holds
// the inquiry's general link. Opening it (OpenLink) is judged in this order:
//
//	token ──► signature ── forged or altered ─────────► CodeNotFound: nothing of the question
//	            └── the bot's ──► revoked since issued ► CodeGone: nothing of the question
//	                  └── no ──► inquiry resolved ─────► CodeAlreadyResolved + the record: what
//	                               │                       happened and who decided
//	                               └── pending ──► link expired ► CodeGone
//	                                     └── the general link where who answers matters
//	                                         (approvals > 1, requested_by) ► CodeForbidden
//	                                     └── open: the page; AnswerByLink answers as Link.Who
package inquiry
