// Package channeltest is the conformance suite every channel passes (Slack, Teams, the answer
// link and email): one set of cases, run by each channel's own tests through a small Harness the
// channel implements over its fake, the way one driver suite proves every database driver. A
// channel's tests are this suite plus what is its own. Only tests import this package.
//
// A channel that lacks a capability (threads, an API that can fail) says so in Caps: the case
// logs "not applicable: <why>" and asserts the flag, and is never skipped, since CI fails on a
// skipped test.
package channeltest

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/testkit"
)

// People are the names the suite gives persons; each harness maps them to its channel's own.
const (
	Alice = "alice"
	Bob   = "bob"
	Carol = "carol"
)

// Within bounds every wait of the suite: no healthy machine reaches it.
const Within = 15 * time.Second

// Reply is what a person was told in the channel after an answer was given there: the words of
// the response, the ephemeral or the page ("" when nothing was said, as after a first answer in
// Slack).
type Reply struct {
	Told string
}

// Shown is one message or page the channel shows for a question, as it stands now.
type Shown struct {
	Text     string // every word shown, for Contains assertions
	Buttons  int    // answer buttons (one per option)
	List     bool   // a select, a choice set or a list of the options
	Controls bool   // anything left to click or fill in
}

// Attempt is one call the channel made to its API to post a question, failed ones included,
// stamped with the clock the channel is paced by.
type Attempt struct {
	Status int  // the HTTP status, or the SMTP reply code
	OK     bool // the call went through
	At     time.Time
}

// Caps says what a channel can do; a false flag carries its why.
type Caps struct {
	// MaxButtons is how many options a single Choice shows as buttons; past it, a list. Zero
	// when the channel has no such limit: NoButtonLimit says why, and every option must then be
	// a button.
	MaxButtons    int
	NoButtonLimit string
	// ForgedStatus is the status a forged request is refused with: 401 where requests are signed,
	// 404 for a link the bot never made (it names nothing). Zero means 401.
	ForgedStatus int
	// NoGate, when set, says why a person the question does not name cannot even try to answer
	// it on this channel (nothing of it reaches them).
	NoGate string
	// Threads: a reply in the question's thread answers it. NoThreads says why not.
	Threads   bool
	NoThreads string
	// API: the channel posts through an API that the fake can fail (429, 5xx, refusals). NoAPI
	// says why not.
	API   bool
	NoAPI string
	// Paced: the API says when to retry (429 with Retry-After) and a failure is an HTTP status.
	// NoPacing says why not; the retry case then checks the retries alone.
	Paced    bool
	NoPacing string
}

// Harness is one channel over its fake, on a real store. Every method fails t on an unexpected
// error; persons are the suite's names (Alice, Bob, Carol).
type Harness interface {
	Name() string
	Caps() Caps
	Service() *inquiry.Service
	// Identity is how answered_by spells person on this channel.
	Identity(person string) string
	// Ask asks in through the channel, only answerers may answer when some are named (else at
	// least Alice and Bob may), and returns the record once the question is posted.
	Ask(t *testing.T, in inquiry.Inquiry, answerers ...string) *inquiry.Record
	// Answer is person choosing the option value the channel's native way (a click, a form
	// post), and what the person was told.
	Answer(t *testing.T, rec *inquiry.Record, person, value string) Reply
	// Forged sends an answer for rec with a forged signature or token and a body that is not
	// even well-formed, and returns the HTTP status.
	Forged(t *testing.T, rec *inquiry.Record) int
	// Shown is every message or page the channel shows for rec, latest state: one entry for
	// each message the channel delivered (a message sent twice is two).
	Shown(t *testing.T, rec *inquiry.Record) []Shown
	// ReplyInThread is person replying text in rec's thread (Caps.Threads only).
	ReplyInThread(t *testing.T, rec *inquiry.Record, person, text string)
	// FailPosts makes the next two post attempts fail for a passing reason: where Caps.Paced, a
	// 5xx, then a 429 with Retry-After retryAfter (Caps.API only).
	FailPosts(t *testing.T, retryAfter time.Duration)
	// Attempts are the post attempts made so far (Caps.API only).
	Attempts(t *testing.T) []Attempt
	// Unpostable asks in somewhere the channel refuses for good (a channel the bot is not in)
	// without waiting, and returns the record and the words of the fix its failure must give
	// (Caps.API only).
	Unpostable(t *testing.T, in inquiry.Inquiry) (rec *inquiry.Record, fix string)
	// Settle lets time pass on the channel's clock where it has one of its own (a test clock
	// the dispatcher runs on), so that work waiting for it runs; a no-op on the wall clock.
	Settle(d time.Duration)
}

// Namer is a Harness whose channel's messages name a person otherwise than answered_by spells
// them: Teams shows the name its roster gives for the Entra object id the record keeps.
type Namer interface {
	// ShownAs is how the channel's messages name person.
	ShownAs(person string) string
}

// shownAs is how h's messages name person: Namer's name, or the identity answered_by keeps.
func shownAs(h Harness, person string) string {
	if n, ok := h.(Namer); ok {
		return n.ShownAs(person)
	}
	return h.Identity(person)
}

// Run runs every case on h, each as a subtest named for what it proves.
func Run(t *testing.T, h Harness) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(t, h) })
	}
}

var cases = []struct {
	name string
	run  func(*testing.T, Harness)
}{
	{"buttons within limits", buttonsWithinLimits},
	{"a click answers once", answersOnce},
	{"a person not allowed is refused in words", notAllowedRefused},
	{"a forged signature is refused before parsing", forgedRefused},
	{"replies route to the right question", repliesRoute},
	{"messages updated after expiry; a late click told", updatedAfterExpiry},
	{"429 and 5xx retried with pacing", retried},
	{"a permanent error recorded on failure", permanentFailure},
}

// choice is a single Choice of n options, opt1 … optN, labelled "Option 1" … "Option N".
func choice(id string, n int) inquiry.Inquiry {
	in := inquiry.Inquiry{ID: id, Kind: inquiry.KindChoice, Question: "Which one, " + id + "?", Default: inquiry.One("opt1")}
	for i := 1; i <= n; i++ {
		in.Options = append(in.Options, inquiry.Option{Value: "opt" + strconv.Itoa(i), Label: "Option " + strconv.Itoa(i)})
	}
	return in
}

func merge(id string) inquiry.Inquiry {
	return inquiry.Inquiry{ID: id, Kind: inquiry.KindChoice, Question: "Merge " + id + " now?",
		Options: []inquiry.Option{{Value: "merge", Label: "Merge"}, {Value: "hold", Label: "Hold"}},
		Default: inquiry.One("hold")}
}

// id is a question id of the case's own: the cases share one store.
func id(t *testing.T, suffix string) string {
	return strings.NewReplacer("/", "-", " ", "_", ";", "", "'", "").Replace(t.Name()) + "-" + suffix
}

func get(t *testing.T, h Harness, key string) *inquiry.Record {
	t.Helper()
	rec, err := h.Service().Get(t.Context(), key)
	if err != nil {
		t.Fatalf("%s: read inquiry %s: %v", h.Name(), key, err)
	}
	return rec
}

// pending asserts rec is still pending with nothing recorded.
func pending(t *testing.T, h Harness, key, after string) {
	t.Helper()
	if got := get(t, h, key); got.Status != inquiry.StatusPending || got.Answer != nil {
		t.Fatalf("%s: after %s the inquiry is %s with %+v, want pending with no answer", h.Name(), after, got.Status, got.Answer)
	}
}

// shownSettled waits until every message shown for rec has no controls and says all of words.
func shownSettled(t *testing.T, h Harness, rec *inquiry.Record, words ...string) {
	t.Helper()
	var last []Shown
	testkit.Eventually(showing{t, &last}, Within, h.Name()+": every message of "+rec.Key+" updated to show the outcome "+strings.Join(words, ", "), func() bool {
		h.Settle(time.Second)
		last = h.Shown(t, rec)
		if len(last) == 0 {
			return false
		}
		for _, s := range last {
			if s.Controls {
				return false
			}
			for _, w := range words {
				if !strings.Contains(strings.ToLower(s.Text), strings.ToLower(w)) {
					return false
				}
			}
		}
		return true
	})
}

// showing fails t saying what was shown last.
type showing struct {
	t    *testing.T
	last *[]Shown
}

func (s showing) Helper() { s.t.Helper() }
func (s showing) Fatalf(format string, args ...any) {
	s.t.Helper()
	s.t.Fatalf(format+"; shown last: %+v", append(args, *s.last)...)
}
