package inquiry

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
)

// Kind is what sort of answer an inquiry asks for.
type Kind string

// The three kinds of question.
const (
	KindChoice  Kind = "choice"  // pick one (or several) of the offered options
	KindText    Kind = "text"    // answer in your own words
	KindConfirm Kind = "confirm" // yes or no
)

// Valid reports whether k is one of the three kinds.
func (k Kind) Valid() bool { return k == KindChoice || k == KindText || k == KindConfirm }

// Policy decides whether anybody is asked at all.
type Policy string

// The three policies, and no fourth.
const (
	PolicyAsk     Policy = "ask"     // put the question to a person through the transport
	PolicyDefault Policy = "default" // ask nobody; assume the inquiry's default (or decline)
	PolicyRefuse  Policy = "refuse"  // nobody may be asked: the ask fails with ErrDeclined
)

// Valid reports whether p is one of the three policies.
func (p Policy) Valid() bool { return p == PolicyAsk || p == PolicyDefault || p == PolicyRefuse }

// ParsePolicy reads a policy name, refusing anything else with a sentence.
func ParsePolicy(s string) (Policy, error) {
	p := Policy(strings.TrimSpace(strings.ToLower(s)))
	if !p.Valid() {
		return "", fmt.Errorf("policy %q is not one of ask, default or refuse", s)
	}
	return p, nil
}

// Limits of an inquiry. DefaultAnswerChars is the ONE ceiling on a stored answer: every layer
// (the modal's max_length, the API schema, CapAnswer) references it rather than restating it.
const (
	DefaultAnswerChars = 2000 // the only cap on a stored answer's prose
	StateTextChars     = 200  // what a run's state keeps of the prose
	MaxOptions         = 12   // beyond that it is not a question
	MinOptions         = 2

	MaxIDChars                = 200
	MaxQuestionChars          = 2000
	MaxContextChars           = 2000
	MaxOptionValueChars       = 150
	MaxOptionLabelChars       = 75
	MaxOptionDescriptionChars = 75
	MaxWait                   = 55 * time.Second // longest long-poll, under the usual 60 s timeouts
)

// Well-known transport keys.
const (
	TransportSlack = "slack"
	TransportInbox = "inbox" // always seated: questions wait in the store
)

// Config is how an inquiry is asked. It travels with a run so that a run resumed days later asks
// the same way.
type Config struct {
	Policy    Policy `json:"policy,omitempty"`
	Transport string `json:"transport,omitempty"`
}

// Option is one offered answer of a Choice.
type Option struct {
	Value       string `json:"value"`
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// UnmarshalJSON takes an object or a bare string (value = label). An object is read by the
// strict decoder: a name Option does not have is refused.
func (o *Option) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*o = Option{Value: s, Label: s}
		return nil
	}
	if len(b) == 0 || b[0] != '{' {
		if bytes.Equal(b, []byte("null")) {
			return nil
		}
		// Say what an option may be, not what the object inside it would have been.
		kind := "number"
		switch {
		case len(b) > 0 && b[0] == '[':
			kind = "array"
		case len(b) > 0 && (b[0] == 't' || b[0] == 'f'):
			kind = "bool"
		}
		return &json.UnmarshalTypeError{Value: kind, Type: reflect.TypeOf(Option{})}
	}
	type plain Option
	var p Option
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode((*plain)(&p)); err != nil {
		return err
	}
	// An option given only a label or only a value uses it for both.
	if p.Value == "" {
		p.Value = p.Label
	}
	if p.Label == "" {
		p.Label = p.Value
	}
	*o = p
	return nil
}

// Value is the decision of an answer (or an inquiry's default): one string, or a list when the
// inquiry allows several. The zero Value is "nothing" and encodes as null.
type Value struct {
	items []string
	list  bool
}

// One is a single value.
func One(s string) Value { return Value{items: []string{s}} }

// Many is a list value (for a Choice with multiple).
func Many(ss ...string) Value { return Value{items: append([]string{}, ss...), list: true} }

// IsZero reports whether v holds nothing.
func (v Value) IsZero() bool { return !v.list && len(v.items) == 0 }

// IsList reports whether v is a list.
func (v Value) IsList() bool { return v.list }

// Strings returns the items (a copy).
func (v Value) Strings() []string { return append([]string(nil), v.items...) }

// First returns the first item, or "".
func (v Value) First() string {
	if len(v.items) == 0 {
		return ""
	}
	return v.items[0]
}

// Len is the number of items.
func (v Value) Len() int { return len(v.items) }

// Equal reports whether two values hold the same items in the same form.
func (v Value) Equal(o Value) bool {
	if v.list != o.list || len(v.items) != len(o.items) {
		return false
	}
	for i := range v.items {
		if v.items[i] != o.items[i] {
			return false
		}
	}
	return true
}

// canon is v with each item in its canonical form (Canon).
func (v Value) canon() Value {
	if len(v.items) == 0 {
		return v
	}
	out := Value{items: make([]string, len(v.items)), list: v.list}
	for i, s := range v.items {
		out.items[i] = Canon(s)
	}
	return out
}

// String joins the items with ", ".
func (v Value) String() string { return strings.Join(v.items, ", ") }

// MarshalJSON encodes null, a string, or a list.
func (v Value) MarshalJSON() ([]byte, error) {
	switch {
	case v.list:
		if v.items == nil {
			return []byte("[]"), nil
		}
		return json.Marshal(v.items)
	case len(v.items) == 0:
		return []byte("null"), nil
	default:
		return json.Marshal(v.items[0])
	}
}

// errValueType is returned for a value that is neither a string nor a list of strings.
var errValueType = errors.New("must be a string or a list of strings")

// UnmarshalJSON decodes null, a string, or a list of strings.
func (v *Value) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*v = Value{}
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*v = One(s)
	case len(b) > 0 && b[0] == '[':
		var ss []string
		if err := json.Unmarshal(b, &ss); err != nil {
			return errValueType
		}
		*v = Many(ss...)
	default:
		return errValueType
	}
	return nil
}

// Inquiry is one question put to a person, as the asker describes it.
type Inquiry struct {
	// ID is chosen by the asker, or derived by the server from the content when the asker gives
	// none (DeriveID), and is stable across re-entries of the same step; it is the only thing an
	// answer is matched by inside a run.
	ID        string     `json:"id"`
	RunID     string     `json:"run_id"`
	Kind      Kind       `json:"kind"`
	Question  string     `json:"question"`
	Context   string     `json:"context"`
	Options   []Option   `json:"options"`
	Multiple  bool       `json:"multiple"`
	AllowText bool       `json:"allow_text"`
	Default   Value      `json:"default"`
	ExpiresAt *time.Time `json:"expires_at"`
	// Proposal is what the person approves, shown whole (nil: the question alone).
	Proposal *Proposal `json:"proposal,omitempty"`
	// Approval is what a team must give (approvals, veto, requested_by, reason): optional.
	Approval
	// Deadlines are the reminders, the escalation chain and the extension allowed: optional.
	Deadlines
}

// MarshalJSON writes the request as a sender sends it: the inquiry's members that the response
// shape always carries are left out when zero (omitzero), so a request holds only what its
// sender set; every other member keeps its own tag. The list is of those members alone: a new
// optional field, tagged omitempty, needs no change here.
func (r AskRequest) MarshalJSON() ([]byte, error) {
	type request AskRequest // the same members, without this method
	return marshalAsWritten(struct {
		ID        string     `json:"id,omitzero"`
		RunID     string     `json:"run_id,omitzero"`
		Kind      Kind       `json:"kind,omitzero"`
		Question  string     `json:"question,omitzero"`
		Context   string     `json:"context,omitzero"`
		Options   []Option   `json:"options,omitzero"`
		Multiple  bool       `json:"multiple,omitzero"`
		AllowText bool       `json:"allow_text,omitzero"`
		Default   Value      `json:"default,omitzero"`
		ExpiresAt *time.Time `json:"expires_at,omitzero"`
		request
	}{r.ID, r.RunID, r.Kind, r.Question, r.Context, r.Options, r.Multiple, r.AllowText, r.Default, r.ExpiresAt, request(r)})
}

// marshalAsWritten is json.Marshal without its HTML escaping: a request's markup (a proposal of
// 256 KiB of it) is sent as written, one byte for one, not as \u003c.
func marshalAsWritten(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Source says who or what produced an answer. Labels are honest: only a human is SourcePerson.
type Source string

// Sources of an answer.
const (
	SourcePerson  Source = "person"  // a person answered
	SourceDefault Source = "default" // policy default: nobody was asked
	SourceExpired Source = "expired" // nobody answered in time: the default, or a decline
	// SourceCaller is what a run's caller handed back through resume: the caller's word, labelled
	// with the caller's token, never a person's.
	SourceCaller Source = "caller"
)

// Valid reports whether s is one of the four sources.
func (s Source) Valid() bool {
	return s == SourcePerson || s == SourceDefault || s == SourceExpired || s == SourceCaller
}

// Answer is what came back.
type Answer struct {
	InquiryID  string    `json:"inquiry_id"`
	Value      Value     `json:"value"`
	Text       string    `json:"text"`
	Declined   bool      `json:"declined"`
	Truncated  bool      `json:"truncated"`
	AnsweredBy string    `json:"answered_by"`
	Source     Source    `json:"source"`
	AnsweredAt time.Time `json:"answered_at"`
	// Votes are the votes of an inquiry that needed several people (its approvals), when it
	// resolved: who, what and when, through which way in.
	Votes []Vote `json:"votes,omitempty"`
	// Via is how a person's answer came in, when it came through a link (web or email) or from an
	// MCP client's own user (mcp, answer_here).
	Via Via `json:"via,omitempty"`
	// Content is the approved content of an editable proposal, whole, when the person sent one;
	// Edited says it differs from the proposal, which the inquiry keeps.
	Content string `json:"content,omitempty"`
	Edited  bool   `json:"edited,omitempty"`
}

// Status is where an inquiry stands.
type Status string

// Inquiry statuses; see doc.go for the state machine.
const (
	StatusPending   Status = "pending"
	StatusAnswered  Status = "answered"
	StatusExpired   Status = "expired"
	StatusCancelled Status = "cancelled"
	StatusFailed    Status = "failed"
)

// statuses are the inquiry statuses, in the order sentences name them.
var statuses = []Status{StatusPending, StatusAnswered, StatusExpired, StatusCancelled, StatusFailed}

// Valid reports whether s is a known status.
func (s Status) Valid() bool { return slices.Contains(statuses, s) }

// CheckFilter refuses a status to list by that is no status; "" (every status) passes.
func (s Status) CheckFilter() error { return checkFilter(s, statuses) }

// checkFilter refuses s, a status to list by, unless it is one of all or "" (every status).
func checkFilter[S ~string](s S, all []S) error {
	if s == "" || slices.Contains(all, s) {
		return nil
	}
	names := make([]string, len(all))
	for i, v := range all {
		names[i] = string(v)
	}
	return FieldErrorf(CodeBadRequest, "status", "status %q is not one of %s or %s: use one of them, or leave it out for all",
		string(s), strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}

// Resolved reports whether s is final.
func (s Status) Resolved() bool { return s != StatusPending && s.Valid() }

// SlackRef is where an inquiry is (or is to be) shown in Slack.
type SlackRef struct {
	Channel   string   `json:"channel"`
	ThreadTS  string   `json:"thread_ts"`
	TS        string   `json:"ts"`
	Permalink string   `json:"permalink"`
	Answerers []string `json:"answerers"`
}

// Failure says why an inquiry could not be put to anybody.
type Failure struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
	Fatal   bool   `json:"fatal"`
}

// Record is a stored inquiry: the asker's inquiry plus what the server knows of it. Its JSON is
// the inquiry shape every endpoint returns.
type Record struct {
	Key string `json:"key"` // the server's own opaque, URL-safe id
	Inquiry
	Namespace string   `json:"namespace"`
	Config    Config   `json:"config"`
	Status    Status   `json:"status"`
	Answer    *Answer  `json:"answer"`
	Slack     SlackRef `json:"slack"`
	// Email is whom the email transport mailed (nil: nobody).
	Email *EmailTarget `json:"email,omitempty"`
	// Teams is where in Microsoft Teams it is asked (nil: not there).
	Teams       *TeamsTarget `json:"teams,omitempty"`
	CallbackURL string       `json:"callback_url,omitempty"`
	Failure     *Failure     `json:"failure"`
	CreatedAt   time.Time    `json:"created_at"`
	ResolvedAt  *time.Time   `json:"resolved_at"`
	// Votes are the votes so far of an inquiry that needs several people (Approval).
	Votes []Vote `json:"votes,omitempty"`
	// AskedBy is the name of the token that asked ("" when unknown): that token may not answer it.
	AskedBy string `json:"-"`
	// Links are the answer links of a pending inquiry (Service.AnswerLinks), filled by the edge
	// that shows it; never stored.
	Links *Links `json:"links,omitempty"`
	// Progress is what was done of the deadlines: reminders sent, the escalation step, time added.
	Progress
	// Placements are the other messages that show the inquiry: its question on each channel
	// but Slack, and escalation steps'.
	Placements []Placement `json:"placements,omitempty"`
	// Channels are the channels it is posted to, its transport first (nil: stored before an
	// inquiry could name several; see PostsTo).
	Channels []string `json:"channels,omitempty"`
}

// PostsTo lists the channels rec's question is posted to, its transport first: none for the
// inbox, and for a record stored before Channels, its transport alone.
func (r *Record) PostsTo() []string {
	if r.Channels != nil {
		return r.Channels
	}
	if r.Config.Transport == "" || r.Config.Transport == TransportInbox {
		return nil
	}
	return []string{r.Config.Transport}
}

// DueAt reports whether the inquiry is pending past its expiry at now: from that instant it is
// expired wherever it is looked at, whether or not the sweeper has got to it.
func (r *Record) DueAt(now time.Time) bool {
	return r.Status == StatusPending && r.ExpiresAt != nil && !now.Before(*r.ExpiresAt)
}

// Offered returns the answers an inquiry offers: its options for a Choice, yes and no for a
// Confirm, nothing for a Text.
func Offered(in *Inquiry) []Option {
	switch in.Kind {
	case KindChoice:
		return in.Options
	case KindConfirm:
		return ConfirmOptions
	}
	return nil
}

// ConfirmOptions are the two answers of a Confirm.
var ConfirmOptions = []Option{{Value: "yes", Label: "Yes"}, {Value: "no", Label: "No"}}

// HasDefault reports whether the inquiry says what to assume when nobody answers.
func (in *Inquiry) HasDefault() bool { return !in.Default.IsZero() }

// SameContent reports whether two inquiries ask the same question the same way: kind, question,
// context, options, multiple, allow_text and default. The expiry is left out on purpose: an asker
// that re-enters with expires_in "2h" computes a new time on every entry, and that is still the same
// question.
func SameContent(a, b *Inquiry) bool { return bytes.Equal(content(a), content(b)) }

// Fingerprint is a short, stable digest of what SameContent compares (kind, question, context,
// options, multiple, allow_text, default). The server derives the id of a question asked without
// one from it (DeriveID), so asking the same question again finds the same inquiry, and a
// question whose content changed is a new inquiry rather than an id conflict.
func Fingerprint(in *Inquiry) string {
	sum := sha256.Sum256(content(in))
	return hex.EncodeToString(sum[:8])
}

// content is what an inquiry asks, apart from where (its id and run) and until when: the one
// list of the fields SameContent compares and Fingerprint digests. Its JSON is unambiguous (two
// contents encode alike only when they are alike) and stable: derived ids depend on it.
func content(in *Inquiry) []byte {
	options := in.Options
	if len(options) == 0 {
		options = nil // no options, however they were spelt
	}
	b, _ := json.Marshal(struct {
		Kind      Kind      `json:"kind"`
		Question  string    `json:"question"`
		Context   string    `json:"context"`
		Options   []Option  `json:"options"`
		Multiple  bool      `json:"multiple"`
		AllowText bool      `json:"allow_text"`
		Default   Value     `json:"default"`
		Approval            // omitted when unset, so that the content of an inquiry without it reads as before
		Proposal  *Proposal `json:"proposal,omitempty"` // likewise: two proposals are two questions
	}{in.Kind, in.Question, in.Context, options, in.Multiple, in.AllowText, in.Default, in.Approval, in.Proposal})
	return b
}

// DerivedID is prefix, a colon, and the Fingerprint of in's content, so that asking the same
// question again finds the same inquiry, and a question whose content changed is a new inquiry
// rather than an id conflict.
func DerivedID(prefix string, in *Inquiry) string { return prefix + ":" + Fingerprint(in) }

// AutoIDPrefix begins the id the server derives for a question asked without one.
const AutoIDPrefix = "auto"

// DeriveID gives in, asked without an id, the id the server derives: DerivedID with
// AutoIDPrefix of its canonical content, so that two spellings of one question (NFC or not)
// are one inquiry. The namespace and the run are where the id lives, not part of it. An id
// given, blank or not, is left for Validate to judge.
func DeriveID(in *Inquiry) {
	if in.ID != "" {
		return
	}
	c := *in
	canonInquiry(&c)
	in.ID = DerivedID(AutoIDPrefix, &c)
}
