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
//	  │ a person answers   │ expiry passes         │ asker cancels │ transport fails for good
//	  │ (first one wins)   │ (sweeper)             │               │ (channel gone, token revoked)
//	  ▼                    ▼                       ▼               ▼
//	answered            expired                cancelled         failed
//	source: person      source: expired         no answer        failure: inquiry_unavailable
//	                    the default, or                          (fatal)
//	                    declined: true
//
//	ask (policy default) ──► answered, source: default (nobody asked; the assumption is recorded)
//	ask (policy refuse)  ──► nothing stored; the ask fails with inquiry_declined (not fatal)
//
// Every arrow out of pending is one conditional update: the first resolution wins and every later
// one gets already_resolved. A resolved inquiry never changes again.
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
// # Asking inside a run
//
// Run.Ask has exactly three outcomes, in order: (1) the state already holds an answer for this
// inquiry id — return it, a question is never asked twice; (2) a live channel answers within the
// wait — record StateAnswerOf(CapAnswer(answer)) and return the full capped answer; (3) nobody
// answered in time — the run parks waiting on the inquiry.
package inquiry
