package inquiry

import (
	"strings"
	"time"
)

// AskRequest is an inquiry as an asker sends it, with how to ask it. Its JSON is the body of
// POST /v1/inquiries (and of POST /v1/runs/{id}/ask) by the wire names: the gateway decodes it,
// the Go client and bot ask send it, the MCP tools build it — it is declared here once. The
// service reads what it leaves open (ExpiryFrom, WaitFrom, the run's and the server's config).
type AskRequest struct {
	Inquiry
	// ExpiresIn is the expiry as a Go duration from now ("2h"), instead of expires_at.
	ExpiresIn string `json:"expires_in,omitempty"`
	// Config is how to ask; nil: the run's config, else the server's defaults.
	Config *Config `json:"config,omitempty"`
	// Slack is where in Slack to ask and who may answer; where it landed is the server's.
	Slack *SlackTarget `json:"slack,omitempty"`
	// Email is whom the email transport mails the question to.
	Email *EmailTarget `json:"email,omitempty"`
	// Teams is the Microsoft Teams conversation to ask in, and who may answer there.
	Teams *TeamsTarget `json:"teams,omitempty"`
	// CallbackURL is POSTed the inquiry, signed, once it is resolved.
	CallbackURL string `json:"callback_url,omitempty"`
	// Wait is how long, in seconds (0..MaxWait), the ask may wait for an answer before it returns
	// the pending inquiry (Seconds makes one of a duration).
	Wait *float64 `json:"wait,omitempty"`

	// Namespace and AskedBy are the caller's (CallerFrom), never the wire's.
	Namespace string `json:"-"`
	AskedBy   string `json:"-"`
}

// SlackTarget is where in Slack to ask, and who may answer: users U…/W… and user groups S….
type SlackTarget struct {
	Channel   string   `json:"channel,omitempty"`
	ThreadTS  string   `json:"thread_ts,omitempty"`
	Answerers []string `json:"answerers,omitempty"`
}

// Ref is the target as the record keeps it (nil: nothing named).
func (t *SlackTarget) Ref() SlackRef {
	if t == nil {
		return SlackRef{}
	}
	return SlackRef{Channel: t.Channel, ThreadTS: t.ThreadTS, Answerers: t.Answerers}
}

// Seconds is d as the seconds of a wait on the wire (nil for none).
func Seconds(d time.Duration) *float64 {
	if d <= 0 {
		return nil
	}
	s := d.Seconds()
	return &s
}

// ExpiryFrom is the one reading of an expiry as an asker gives it: expires_at, an RFC 3339 time
// (at), or expires_in, a Go duration from now such as "2h" (in) — one of them, or neither. It
// returns the time (nil for none) or the refusal, an *Error of code invalid_inquiry on the field
// that is wrong. Whether the time lies in the future is Validate's to say.
func ExpiryFrom(at *time.Time, in string, now time.Time) (*time.Time, error) {
	if in == "" {
		return at, nil
	}
	if at != nil {
		return nil, invalid("expires_in", "expires_at and expires_in are both given: give one of them, not both")
	}
	d, err := time.ParseDuration(strings.TrimSpace(in))
	if err != nil {
		return nil, invalid("expires_in", "expires_in %q is not a duration: write it like \"2h\", \"90m\" or \"1h30m\"", in)
	}
	if d <= 0 {
		return nil, invalid("expires_in", "expires_in %q does not lie in the future: give a positive duration such as \"2h\"", in)
	}
	t := now.Add(d)
	return &t, nil
}

// WaitFrom reads how long a request may wait for an answer, given in seconds: nil is no wait, and
// anything outside 0..MaxWait is refused with the sentence that says to come back with a long-poll
// instead. The refusal is bad_request on field wherever the wait is given (a body's wait, a
// long-poll's ?wait=): a wait is how long the request holds its connection (openapi.yaml: wait), no
// rule of the inquiry asked (Validate, invalid_inquiry).
func WaitFrom(field string, seconds *float64) (time.Duration, error) {
	if seconds == nil {
		return 0, nil
	}
	max := MaxWait.Seconds()
	if !(*seconds >= 0 && *seconds <= max) { // so that NaN is refused too
		return 0, FieldErrorf(CodeBadRequest, field, "%s is %g seconds but must lie between 0 and %g: wait at most %g seconds, then ask again with GET /v1/inquiries/{key}?wait=%g", field, *seconds, max, max, max)
	}
	return time.Duration(*seconds * float64(time.Second)), nil
}

// ClampWait bounds a wait to 0..MaxWait, for edges whose contract is to shorten a longer wait
// rather than refuse it (the MCP tools' wait_seconds).
func ClampWait(d time.Duration) time.Duration { return min(max(d, 0), MaxWait) }

// StateOf is what a run's state keeps of an answer: the decision whole, the prose cut to
// StateTextChars (StateAnswerOf of the answer capped at the one ceiling).
func StateOf(a Answer) Answer { return StateAnswerOf(CapAnswer(a, DefaultAnswerChars)) }
