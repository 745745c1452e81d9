package slackfake

import "unicode/utf8"

// Where Slack's answer to a posted message is not a refusal.

// maxText is how many characters of a message's text Slack keeps.
const maxText = 40000

// truncateText cuts a message's text after 40,000 characters. Slack does not refuse a longer
// text: since August 2018 it truncates it, posts the message and warns — "Your message was
// truncated but still posted. The `text` field accepts up to 40,000 characters." — and this
// "applies to all methods of posting messages to Slack: chat.postMessage, chat.postEphemeral,
// interactive message and slash command response URLs, incoming webhooks"
// (api.slack.com/changelog/2018-04-truncating-really-long-messages; Slack's Block Kit reference
// §B.1). The fake does the same for chat.update, which posts a message's new text.
func truncateText(text string) (string, bool) {
	if utf8.RuneCountInString(text) <= maxText {
		return text, false
	}
	n := 0
	for i := range text {
		if n == maxText {
			return text[:i], true
		}
		n++
	}
	return text, false
}

// warnIf adds to a successful answer, when the text was truncated, the warning Slack gives with
// it: message_truncated in response_metadata.warnings, with its [WARN] sentence in
// response_metadata.messages (the changelog's example answer), and in the top-level "warning"
// Slack's Web API carries its warnings in, comma-separated (slack-go reads both:
// SlackResponse.Warning and ResponseMetadata.Warnings).
func warnIf(truncated bool, out map[string]any) map[string]any {
	if truncated {
		out["warning"] = "message_truncated"
		out["response_metadata"] = map[string]any{
			"messages": []string{"[WARN] Your message was truncated but still posted. The `text` field accepts up to 40,000 characters."},
			"warnings": []string{"message_truncated"},
		}
	}
	return out
}

// threadOf is the thread a message posted with thread_ts goes into. A thread_ts that names no
// message in the channel (the parent was deleted, or never was) does not fail the post: Slack
// "silently un-threads the reply into a top-level channel message", and the answer's message
// has no thread_ts — "the only machine-readable signal" (slack-go issue #1571 and its fix #1572,
// PostMessageWithResponse; slack-go's 0.28.0 release notes: "to detect a reply posted
// un-threaded because the parent was deleted"). Called with s.mu held.
func (s *Server) threadOf(ch *channel, threadTS string) string {
	if threadTS == "" || s.message(ch.id, threadTS) == nil {
		return ""
	}
	return threadTS
}
