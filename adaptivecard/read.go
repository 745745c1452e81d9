package adaptivecard

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/inquiry-bot/bot/inquiry"
)

// Key is the inquiry key an Action.Execute's data carries ("" when it carries none: not one of
// this package's cards).
func Key(data map[string]any) string {
	s, _ := data[DataInquiry].(string)
	return s
}

// ReadReply turns the data of an Action.Execute on rec's card — the button's data merged with
// the card's inputs — into the reply it stands for. The decision is judged by
// inquiry.CheckAnswer, not here; ReadReply refuses, in a sentence, only data no card of rec's
// could have sent.
func ReadReply(rec *inquiry.Record, data map[string]any) (inquiry.Reply, error) {
	var r inquiry.Reply
	r.Text = str(data, InputText)
	if v, ok := data[DataValue].(string); ok {
		r.Value = inquiry.One(v)
		if rec.Multiple {
			r.Value = inquiry.Many(v)
		}
		return r, nil
	}
	picked := strings.TrimSpace(str(data, InputChoice))
	if picked == "" {
		return r, nil // words alone, or nothing: CheckAnswer says what is missing
	}
	offered := inquiry.Offered(&rec.Inquiry)
	var values []string
	for _, s := range strings.Split(picked, ",") {
		i, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || i < 0 || i >= len(offered) {
			return r, fmt.Errorf("the card sent choice %q, which is none of this question's %d options: refresh the card and choose again", s, len(offered))
		}
		values = append(values, offered[i].Value)
	}
	if rec.Multiple {
		r.Value = inquiry.Many(values...)
	} else {
		if len(values) != 1 {
			return r, fmt.Errorf("the card sent %d choices for a question that takes one: choose one and send again", len(values))
		}
		r.Value = inquiry.One(values[0])
	}
	return r, nil
}

// str is data[name] when it is a string: Teams sends every input's value as one.
func str(data map[string]any, name string) string {
	s, _ := data[name].(string)
	return s
}
