package inquiry

import "strings"

// Decision is what an answer decided, read once for every edge that shows it (a Slack message or
// ephemeral, an MCP result, a CLI line, a log line): declined, or the chosen options — their
// labels as people saw them, and their values — and the words that came with it.
type Decision struct {
	Declined bool
	Labels   []string // of the chosen options, in the answer's order
	Values   []string // the chosen options' values, beside Labels
	// Words is the answer's prose: a Text answer, own words instead of an option, the words beside
	// a choice, or a decline's reason.
	Words     string
	Truncated bool // Words were cut at the one ceiling
}

// DecisionOf reads a (nil: nothing). A Text question's answer is its words, never a choice.
func DecisionOf(in *Inquiry, a *Answer) Decision {
	if a == nil {
		return Decision{}
	}
	d := Decision{Declined: a.Declined, Words: a.Text, Truncated: a.Truncated}
	if in.Kind != KindText {
		for _, v := range a.Value.Strings() {
			d.Values = append(d.Values, v)
			d.Labels = append(d.Labels, LabelOf(in, v))
		}
	} else if d.Words == "" && a.Value.Len() > 0 {
		d.Words = a.Value.First()
	}
	return d
}

// Chosen is the labels of the chosen options, joined with ", " ("" when none).
func (d Decision) Chosen() string { return strings.Join(d.Labels, ", ") }

// Relabelled reports whether a chosen option's label says something else than its value (so a
// program reading the answer should be told the value too).
func (d Decision) Relabelled() bool {
	for i, v := range d.Values {
		if !strings.EqualFold(d.Labels[i], v) {
			return true
		}
	}
	return false
}

// Empty reports whether it decides nothing: no decline, no choice, no words.
func (d Decision) Empty() bool { return !d.Declined && len(d.Values) == 0 && d.Words == "" }
