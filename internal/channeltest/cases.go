package channeltest

import (
	"cmp"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/testkit"
)

// buttonsWithinLimits: a Choice of up to MaxButtons options is that many buttons; one more
// option makes it a list, with no more buttons than the channel shows. A channel without a limit
// shows every option as a button.
func buttonsWithinLimits(t *testing.T, h Harness) {
	caps := h.Caps()
	max := caps.MaxButtons
	if max == 0 {
		if caps.NoButtonLimit == "" {
			t.Fatalf("%s: Caps.MaxButtons is 0 and Caps.NoButtonLimit does not say why", h.Name())
		}
		t.Logf("no button limit: %s", caps.NoButtonLimit)
		rec := h.Ask(t, choice(id(t, "all"), 8))
		for _, s := range offering(t, h, rec) {
			if s.Buttons != 8 || s.List {
				t.Fatalf("%s: 8 options and no limit: want 8 buttons, got %+v", h.Name(), s)
			}
		}
		return
	}
	if max < 2 {
		t.Fatalf("%s: Caps.MaxButtons is %d; a channel shows at least two buttons", h.Name(), max)
	}
	few := h.Ask(t, choice(id(t, "few"), max))
	for _, s := range offering(t, h, few) {
		if s.Buttons != max || s.List || !s.Controls {
			t.Fatalf("%s: %d options: want %d buttons and no list, got %+v", h.Name(), max, max, s)
		}
	}
	many := h.Ask(t, choice(id(t, "many"), max+1))
	for _, s := range offering(t, h, many) {
		if !s.List || s.Buttons > max || !strings.Contains(s.Text, many.Options[max].Label) {
			t.Fatalf("%s: %d options: want a list holding every option and at most %d buttons, got %+v", h.Name(), max+1, max, s)
		}
	}
}

// offering is what is shown of rec that offers its options (buttons or a list); there is some.
func offering(t *testing.T, h Harness, rec *inquiry.Record) []Shown {
	t.Helper()
	var out []Shown
	for _, s := range h.Shown(t, rec) {
		if s.Buttons > 0 || s.List {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: nothing shown for the posted question %s offers its options: %+v", h.Name(), rec.Key, h.Shown(t, rec))
	}
	return out
}

// answersOnce: the first click answers, as its person; a second click is told who decided and
// changes nothing; every message then shows the decision without controls.
func answersOnce(t *testing.T, h Harness) {
	rec := h.Ask(t, merge(id(t, "q")))
	h.Answer(t, rec, Alice, "merge")
	got := get(t, h, rec.Key)
	testkit.Eventually(t, Within, h.Name()+": the click answers", func() bool {
		got = get(t, h, rec.Key)
		return got.Status != inquiry.StatusPending
	})
	if got.Status != inquiry.StatusAnswered || got.Answer.Value.First() != "merge" || got.Answer.AnsweredBy != h.Identity(Alice) || got.Answer.Source != inquiry.SourcePerson {
		t.Fatalf("%s: want answered merge by %s, got %s %+v", h.Name(), h.Identity(Alice), got.Status, got.Answer)
	}
	late := h.Answer(t, rec, Bob, "hold")
	if !strings.Contains(late.Told, shownAs(h, Alice)) {
		t.Fatalf("%s: a second click must be told who decided (%s), was told %q", h.Name(), shownAs(h, Alice), late.Told)
	}
	if again := get(t, h, rec.Key); again.Answer.Value.First() != "merge" || again.Answer.AnsweredBy != h.Identity(Alice) {
		t.Fatalf("%s: a second click changed the answer: %+v", h.Name(), again.Answer)
	}
	shownSettled(t, h, rec, "Merge", shownAs(h, Alice))
}

// notAllowedRefused: a question that names who may answer refuses anybody else in a sentence,
// and records nothing; the named person answers.
func notAllowedRefused(t *testing.T, h Harness) {
	rec := h.Ask(t, merge(id(t, "q")), Alice)
	if why := h.Caps().NoGate; why != "" {
		t.Logf("not applicable: %s", why)
		if shown := h.Shown(t, rec); len(shown) == 0 {
			t.Fatalf("%s: nothing shown to the person named", h.Name())
		}
	} else if r := h.Answer(t, rec, Carol, "merge"); !strings.Contains(r.Told, "may answer") {
		t.Fatalf("%s: a person not named must be told who may answer, was told %q", h.Name(), r.Told)
	}
	pending(t, h, rec.Key, "a refused click")
	h.Answer(t, rec, Alice, "hold")
	testkit.Eventually(t, Within, h.Name()+": the named person answers", func() bool {
		got := get(t, h, rec.Key)
		return got.Status == inquiry.StatusAnswered && got.Answer.AnsweredBy == h.Identity(Alice)
	})
}

// forgedRefused: a forged signature or token is 401, before the body is read (it is not even
// well-formed), and records nothing.
func forgedRefused(t *testing.T, h Harness) {
	rec := h.Ask(t, merge(id(t, "q")))
	want := cmp.Or(h.Caps().ForgedStatus, http.StatusUnauthorized)
	if status := h.Forged(t, rec); status != want {
		t.Fatalf("%s: a forged request: want %d, got %d", h.Name(), want, status)
	}
	pending(t, h, rec.Key, "a forged request")
}

// repliesRoute: a reply in one question's thread answers that question, not another one asked
// in the same place.
func repliesRoute(t *testing.T, h Harness) {
	if caps := h.Caps(); !applies(t, h, caps.Threads, caps.NoThreads, "threads", "Caps.NoThreads") {
		return
	}
	first := h.Ask(t, merge(id(t, "first")))
	second := h.Ask(t, merge(id(t, "second")))
	h.ReplyInThread(t, first, Bob, "hold")
	var got *inquiry.Record
	testkit.Eventually(t, Within, h.Name()+": the reply answers its thread's question", func() bool {
		got = get(t, h, first.Key)
		return got.Status != inquiry.StatusPending
	})
	if got.Answer == nil || got.Answer.Value.First() != "hold" || got.Answer.AnsweredBy != h.Identity(Bob) {
		t.Fatalf("%s: want hold by %s, got %s %+v", h.Name(), h.Identity(Bob), got.Status, got.Answer)
	}
	pending(t, h, second.Key, "a reply in another question's thread")
	shownSettled(t, h, first, "Hold")
}

// updatedAfterExpiry: once a question expires, every message shows the answer assumed without
// controls, and a late click is told it expired and answers nothing.
func updatedAfterExpiry(t *testing.T, h Harness) {
	rec := h.Ask(t, merge(id(t, "q")))
	if _, err := h.Service().Expire(t.Context(), get(t, h, rec.Key)); err != nil {
		t.Fatalf("%s: expire: %v", h.Name(), err)
	}
	shownSettled(t, h, rec, "Hold") // the default, assumed
	r := h.Answer(t, rec, Alice, "merge")
	if !strings.Contains(strings.ToLower(r.Told), "expired") {
		t.Fatalf("%s: a late click must be told the question expired, was told %q", h.Name(), r.Told)
	}
	if got := get(t, h, rec.Key); got.Answer == nil || got.Answer.Source != inquiry.SourceExpired {
		t.Fatalf("%s: a late click changed the expired answer: %+v", h.Name(), got.Answer)
	}
}

// retried: a 5xx and a 429 are retried, the retry after a 429 waiting out its Retry-After on
// the channel's clock, and the question is posted once (one attempt went through).
func retried(t *testing.T, h Harness) {
	caps := h.Caps()
	if !applies(t, h, caps.API, caps.NoAPI, "an API to fail", "Caps.NoAPI") {
		return
	}
	const after = 2 * time.Second
	ref := h.Ask(t, merge(id(t, "ref"))) // posted at the first attempt: what "posted once" shows
	before := len(h.Attempts(t))
	h.FailPosts(t, after)
	rec := h.Ask(t, merge(id(t, "q")))
	tries := h.Attempts(t)[before:]
	if len(tries) != 3 || tries[0].OK || tries[1].OK || !tries[2].OK {
		t.Fatalf("%s: want two failed attempts and one that went through, got %+v", h.Name(), tries)
	}
	if !caps.Paced {
		if caps.NoPacing == "" {
			t.Fatalf("%s: a channel whose API does not pace must say why (Caps.NoPacing)", h.Name())
		}
		t.Logf("pacing not applicable: %s", caps.NoPacing)
	} else {
		if tries[0].Status < 500 || tries[1].Status != http.StatusTooManyRequests {
			t.Fatalf("%s: want a 5xx then a 429, got %+v", h.Name(), tries)
		}
		if gap := tries[2].At.Sub(tries[1].At); gap < after {
			t.Fatalf("%s: the retry came %s after the 429, before its Retry-After of %s", h.Name(), gap, after)
		}
	}
	if got, want := len(h.Shown(t, rec)), len(h.Shown(t, ref)); got != want {
		t.Fatalf("%s: posted after retries, the question shows %d times; posted at once, %d", h.Name(), got, want)
	}
}

// permanentFailure: a place the channel refuses for good fails the inquiry at once, its failure
// saying what to fix.
func permanentFailure(t *testing.T, h Harness) {
	if caps := h.Caps(); !applies(t, h, caps.API, caps.NoAPI, "an API to fail", "Caps.NoAPI") {
		return
	}
	rec, fix := h.Unpostable(t, merge(id(t, "q")))
	var got *inquiry.Record
	testkit.Eventually(t, Within, h.Name()+": the inquiry records its failure", func() bool {
		h.Settle(time.Second)
		got = get(t, h, rec.Key)
		return got.Failure != nil
	})
	if !got.Failure.Fatal || !strings.Contains(got.Failure.Message, fix) {
		t.Fatalf("%s: want a permanent failure saying %q, got %+v", h.Name(), fix, got.Failure)
	}
}

// applies reports whether a case that needs what (threads, an API to fail) applies to h: it
// does when has is true; when not, the channel must say why in field, and the case logs it as
// not applicable and checks nothing more — a missing reason fails, nothing is skipped.
func applies(t *testing.T, h Harness, has bool, why, what, field string) bool {
	t.Helper()
	if has {
		return true
	}
	if why == "" {
		t.Fatalf("%s: a channel without %s must say why (%s)", h.Name(), what, field)
	}
	t.Logf("not applicable: %s", why)
	return false
}
