package blockkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/slack-go/slack"
)

// rendering is what Render writes: the message as Slack would show it now, and the modal its
// button opens, if any.
type rendering struct {
	Blocks []slack.Block           `json:"blocks"`
	Text   string                  `json:"text"`
	Modal  *slack.ModalViewRequest `json:"modal,omitempty"`
}

// Render returns the Block Kit of an inquiry as indented JSON, for `bot render`: {"blocks": …}
// pastes into Slack's Block Kit Builder. A pending inquiry renders as its question message, with
// the modal behind its button under "modal" (Text, Confirm, a Choice with allow_text, and the
// reason modal of an answer that must say why); a
// resolved one renders as the updated message. Everything is validated first, so an inquiry that
// would not fit in Slack is an error naming the broken limit.
func Render(rec *inquiry.Record, now time.Time) ([]byte, error) {
	var r rendering
	if rec.Status.Resolved() {
		r.Text, r.Blocks = Resolved(rec, now)
	} else {
		r.Text, r.Blocks = Message(rec, now)
		var m slack.ModalViewRequest
		switch needs := reasonFirst(rec); {
		case CanEditInSlack(&rec.Inquiry):
			m = EditModal(rec) // the modal a person reaches to approve an edit
		case rec.Kind == inquiry.KindText:
			m = TextModal(rec)
		case rec.Kind == inquiry.KindConfirm && rec.Quorum() > 1 && needs != "":
			m = ReasonModal(rec, inquiry.One(needs)) // its buttons vote; a No that must say why opens this
		case rec.Kind == inquiry.KindConfirm:
			m = ConfirmModal(rec)
		case rec.Kind == inquiry.KindChoice && rec.AllowText:
			m = OwnWordsModal(rec)
		case rec.Kind == inquiry.KindChoice && needs != "":
			m = ReasonModal(rec, inquiry.One(needs))
		}
		if m.Type != "" {
			r.Modal = &m
		}
	}
	msg, err := json.Marshal(struct {
		Blocks []slack.Block `json:"blocks"`
		Text   string        `json:"text"`
	}{r.Blocks, r.Text})
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", rec.Key, err)
	}
	if err := ValidateJSON(msg); err != nil {
		return nil, fmt.Errorf("render %s: message: %w", rec.Key, err)
	}
	if r.Modal != nil {
		if err := ValidateView(*r.Modal); err != nil {
			return nil, fmt.Errorf("render %s: modal: %w", rec.Key, err)
		}
	}
	// Unescaped HTML keeps the & < > of Slack's own escaping readable in the output.
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("render %s: %w", rec.Key, err)
	}
	return unescapeHTML(out.Bytes()), nil
}

// reasonFirst is the first offered answer whose click opens ReasonModal, or "".
func reasonFirst(rec *inquiry.Record) string {
	for _, o := range inquiry.Offered(&rec.Inquiry) {
		if inquiry.NeedsReason(&rec.Inquiry, o.Value, false) {
			return o.Value
		}
	}
	return ""
}

// unescapeHTML turns the \u003c, \u003e and \u0026 that slack-go's own MarshalJSON methods
// write back into < > &, so the JSON shows Slack's escaping as Slack will see it. It reads the
// JSON's escapes properly: an escaped backslash followed by "u003c" stays as it is.
func unescapeHTML(b []byte) []byte {
	out := make([]byte, 0, len(b))
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case !inString:
			inString = c == '"'
		case c == '"':
			inString = false
		case c == '\\' && i+1 < len(b):
			if b[i+1] == 'u' && i+5 < len(b) {
				switch string(b[i+2 : i+6]) {
				case "003c":
					out, i = append(out, '<'), i+5
					continue
				case "003e":
					out, i = append(out, '>'), i+5
					continue
				case "0026":
					out, i = append(out, '&'), i+5
					continue
				}
			}
			out = append(out, c, b[i+1])
			i++
			continue
		}
		out = append(out, c)
	}
	return out
}
