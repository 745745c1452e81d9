// Package slackapp is the Slack side of the inquiry bot, built on slack-go: the "slack"
// transport that posts questions and updates them once resolved, and the handlers that turn
// Slack interactions, thread replies and slash commands into answers.
//
// It owns:
//
//   - App, an inquiry.Transport: Post (chat.postMessage of blockkit.Message, paced per channel,
//     with a best-effort permalink; a team approval whose user groups have fewer people than
//     it needs fails instead, inquiry.GroupQuorumFits), Update (chat.update of blockkit.Message
//     with the tally while a team approval is pending, of blockkit.Resolved once resolved) and Notice (a
//     thread message of blockkit.Notice). Slack's errors become the dispatcher's vocabulary: a
//     429 is an *inquiry.RetryAfterError, a permanent error (channel_not_found, not_in_channel,
//     token_revoked, missing_scope, invalid_blocks, …) is inquiry.Unavailable with a sentence
//     that says how to fix it, and anything passing (5xx, network) is a plain error retried with
//     backoff;
//   - the HTTP endpoints POST /slack/interactions, /slack/events and /slack/commands, which
//     check the request signature on the raw body before anything is parsed, and fail closed
//     without a signing secret;
//   - Socket Mode, which feeds the same handler functions (handleInteraction, handleEvent,
//     handleCommand) as the HTTP endpoints;
//   - the App Home (home.go): app_home_opened publishes, with views.publish, the questions
//     waiting for whoever opened the tab (blockkit.HomeView), and a message update publishes it
//     again for the people it matters to who opened theirs lately;
//   - who may answer (inquiry.MayAnswer of the identity "slack:U…": user ids, and user groups resolved
//     with usergroups.users.list) and the ephemeral sentences people get when they may not, are late, or typed something
//     that is none of the offered answers;
//   - team approvals at the edge: the ephemeral confirming a vote ("Your vote is in: 1 of 2
//     approvals so far."), the four-eyes refusal of whoever requested_by names (on a click, a
//     modal and a thread reply), and the reason modal a click opens when the answer must say
//     why (inquiry.NeedsReason); a thread reply gives its reason after the answer
//     (inquiry.ReplyOf: "no: the tests fail").
//
// It decides nothing about answers itself: clicks and submissions are read by blockkit
// (ReadAction, ReadSubmission), checked by inquiry.CheckAnswer inside Service.Answer, and the
// first answer wins there. Message updates after a resolution are the dispatcher's delivery,
// never done here a second time.
//
// # An interaction, start to end
//
//	Slack ──POST /slack/interactions──► verify signature (raw body, 5 min window) ──► 401, nothing read
//	                                          │ ok
//	                                          ▼
//	                               parse payload ─► handleInteraction
//	                                                  │ open-modal button: views.open now (trigger_id lives 3 s)
//	                                                  │ answer: may this person answer? ─ no ─► ephemeral refusal
//	                                                  │                                   yes
//	                                                  ▼
//	                                        Service.Answer (first wins; enqueues the chat.update)
//	                                                  │ ─ late ─► ephemeral "already answered by …"
//	                                                  ▼
//	                                               ack 200 ◄── ephemerals go out in the background
package slackapp
