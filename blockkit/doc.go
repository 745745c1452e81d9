// Package blockkit renders inquiries as Slack Block Kit and reads Slack's answers back. It is
// pure: records and a clock in, slack-go values and JSON out, no network and no state.
//
// It owns:
//
//   - the question message (Message, with the tally of a team approval as it grows: Tally,
//     Names), the message after resolution (Resolved: who decided, for an approval), the thread
//     notice for an answer assumed by policy (Notice), and the four modals (TextModal,
//     ConfirmModal, OwnWordsModal, and ReasonModal for an answer that must say why);
//   - an inquiry's proposal in its message and in the Home tab: its first lines, preformatted,
//     never shortened without saying so and linking to the answer page (inquiry.ExcerptOf), and
//     EditModal for an editable one, which holds the proposal with its lines ended by LF (the
//     caller gives a submission the proposal's line endings back with inquiry's Proposal.Edit);
//   - the routing scheme that maps a click or a submission back to an inquiry key (the
//     constants below, ParseBlockID, BaseAction, ReadAction, ReadSubmission, ModalFor);
//   - the escaping of user text for Slack (Escape, Mention, Who);
//   - a validator of every Block Kit limit in Slack's Block Kit reference (Validate, ValidateView,
//     and their JSON forms for a fake Slack that receives blocks as JSON);
//   - Render, the Block Kit Builder JSON behind `bot render`.
//
// It does not decide anything: reading an answer (inquiry.AnsweredWith, IsDeclined, RenderValue,
// LabelOf) and checking one (inquiry.CheckAnswer) stay in package inquiry.
//
// # Routing
//
// The inquiry key rides in every block_id, in the value of every button that opens a modal, and
// in a modal's private_metadata, so a click or a submission maps back to its inquiry with
// nothing else:
//
//	block_id           "inq|<key>|<rev>-<part>"    key = everything between "inq|" and the last "|"
//	                   rev: q (question message), r (resolved), n (notice), v (modal sections)
//	action_id          inq:choose:<n>   a single-choice button (n = option index); value = option value
//	                   inq:select       static_select of a single choice (6..12 options)
//	                   inq:pick         checkboxes / multi_static_select of a multiple choice (read on submit)
//	                   inq:submit       Submit of a multiple choice; value = key
//	                   inq:own_words    opens OwnWordsModal; value = key
//	                   inq:open_text    opens TextModal; value = key
//	                   inq:open_confirm opens ConfirmModal; value = key
//	                   inq:open_edit    opens EditModal of an editable proposal; value = key
//	callback_id        inq:text | inq:confirm | inq:own_words | inq:reason | inq:edit
//	private_metadata   the key
//	modal inputs       block inq:answer (action inq:answer_text, inq:yes_no, or inq:choice in the reason
//	                   modal of a choice), block inq:note (action inq:note), block inq:reason (action inq:reason),
//	                   block inq:content (action inq:content: the proposal as edited in EditModal)
//
// A Confirm that needs several approvals shows Yes and No as inq:choose buttons (values yes and
// no); a button whose answer must say why (inquiry.NeedsReason) has no confirmation dialog: its
// click opens the reason modal, the answer preselected.
//
// The scheme is a contract with messages already posted: change it only by adding.
//
// # Escaping
//
// mrkdwn has no escape for its formatting characters (* _ ~ `), so text of the asker's or of
// whoever answered (question, context, labels, descriptions, run id, requested_by, answer words,
// a failure's sentence) never goes into mrkdwn: it is a plain_text object of its own (literal,
// emoji codes off), which Slack neither formats nor parses for mentions or links, shown through
// inquiry.Printed (a character that rewrites the line or shows as nothing is a visible code).
// The asker's text is marked off from the bot's own lines: the question in sections of its own,
// the context under a "Context" label, labels and run ids quoted in context lines. The bot's
// own lines (outcomes, who may answer, dates, links) are verbatim mrkdwn; the notification text
// quotes the question through Escape (Printed, then & < > as entities, and a word joiner after
// the @ of a bare @channel, @here or @everyone) and mentions at most ten answerers. The only
// mentions rendered are ids that look like Slack ids (Mention, Who); <!here> only in a reminder
// of an inquiry with remind_here, which the server takes only with BOT_ALLOW_BROADCAST=true.
package blockkit
