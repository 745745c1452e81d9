package teamsapp_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/inquiry-bot/bot/adaptivecard"
	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/testkit"
	"github.com/inquiry-bot/bot/storage/storagetest"
	"github.com/inquiry-bot/bot/teamsapp/teamsfake"
	"github.com/inquiry-bot/bot/web"
)

var dave = teamsfake.Person{ID: "29:dave", Name: "Dave", AADObjectID: "8f0c2b7e-3d4a-4e5b-9c6d-7e8f9a0b1c2d"}

// actions are the actions of a card's JSON, wherever they stand, by title.
func actions(t *testing.T, card []byte) map[string]map[string]any {
	t.Helper()
	var v any
	if err := json.Unmarshal(card, &v); err != nil {
		t.Fatalf("card %s: %v", card, err)
	}
	out := map[string]map[string]any{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if typ, _ := v["type"].(string); strings.HasPrefix(typ, "Action.") {
				title, _ := v["title"].(string)
				out[title] = v
				return
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	return out
}

// longProposal is n numbered lines: past what a card shows.
func longProposal(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "step %02d of %d: migrate shard %d\n", i, n, i)
	}
	return b.String()
}

// TestOwnPageForNamedAnswerers, through the fake Teams end to end: a question that names who
// may answer shows View all and Edit on the web as buttons that carry no link; a named answerer
// who clicks one gets, on a card for them alone, their own link, whose page shows the whole
// proposal; someone not named is refused in words; and the shared card is never changed by it.
func TestOwnPageForNamedAnswerers(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		b := setup(t, databaseURL)
		pages := httptest.NewServer(web.New(web.Config{Service: b.svc, Logger: quiet}))
		t.Cleanup(pages.Close)
		b.svc.LinkSecret, b.svc.PublicURL = []byte("teams-own-page-secret"), pages.URL
		b.dispatch()
		content := longProposal(60)
		in := inquiry.Inquiry{ID: "migrate", Kind: inquiry.KindConfirm, Question: "Run the shard migration?",
			Proposal: &inquiry.Proposal{Format: inquiry.FormatText, Content: content, Title: "Shard plan", Editable: true}}
		rec := b.askTeams(in, "19:own@thread.tacv2", alice.AADObjectID, bob.AADObjectID)

		post := b.calls(1)[0]
		shared := actions(t, post.Card())
		for _, title := range []string{"View all", "Edit on the web"} {
			if a := shared[title]; a["type"] != "Action.Execute" || a["verb"] != adaptivecard.VerbPage {
				t.Fatalf("the posted card's %s: want an Action.Execute of verb page, got %v", title, a)
			}
		}
		if strings.Contains(string(post.Body), inquiry.LinkPath) {
			t.Fatalf("the card everybody sees carries a link to the page: %s", post.Body)
		}

		r := b.clickVerb(alice, adaptivecard.VerbPage, map[string]any{"inquiry": rec.Key})
		if r.Type != adaptivecard.ContentType {
			t.Fatalf("alice's click: want a card for her, got %s %s", r.Type, r.Value)
		}
		own := actions(t, r.Value)
		url, _ := own["View all"]["url"].(string)
		if own["View all"]["type"] != "Action.OpenUrl" || own["Edit on the web"]["url"] != url || !strings.HasPrefix(url, pages.URL+inquiry.LinkPath) {
			t.Fatalf("alice's card: want View all and Edit on the web to open her link under %s, got %v", pages.URL, own)
		}
		if own["Yes"]["verb"] != adaptivecard.Verb {
			t.Fatalf("alice's card should keep the answer buttons, got %v", own)
		}
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), "step 01 of 60") || !strings.Contains(string(page), "step 60 of 60: migrate shard 60") {
			t.Fatalf("GET of alice's link: want 200 and the whole proposal, got %d %s", resp.StatusCode, page)
		}

		r = b.clickVerb(carol, adaptivecard.VerbPage, map[string]any{"inquiry": rec.Key})
		if r.Type != "application/vnd.microsoft.activity.message" || !strings.Contains(string(r.Value), "may answer") || strings.Contains(string(r.Value), inquiry.LinkPath) {
			t.Fatalf("carol, not named: want the refusal in words, got %s %s", r.Type, r.Value)
		}

		// Bob decides on the card: the one update of the shared card is the decision, and
		// nothing the bot sent Teams carries alice's link.
		b.click(bob, map[string]any{"inquiry": rec.Key, "value": "yes"})
		testkit.Eventually(t, 10*time.Second, "the card updated with bob's decision", func() bool {
			calls := b.fake.Calls()
			last := calls[len(calls)-1]
			return last.Method == http.MethodPut && strings.Contains(string(last.Card()), "Decided")
		})
		for i, c := range b.fake.Calls() {
			if strings.Contains(string(c.Body), strings.TrimPrefix(url, pages.URL)) {
				t.Errorf("call %d (%s) carries alice's link: %s", i, c.Method, c.Body)
			}
			if i > 0 && (c.Method != http.MethodPut || !strings.Contains(string(c.Card()), "Decided")) {
				t.Errorf("call %d: want only the decision's update after the post, got %s %s", i, c.Method, c.Body)
			}
		}
	})
}

// TestPageClickAfterTheDecision: a click on View all of a card whose question was decided
// meanwhile is told so, and gets no link.
func TestPageClickAfterTheDecision(t *testing.T) {
	b := setup(t, storagetest.SQLiteURL(t))
	b.svc.LinkSecret, b.svc.PublicURL = []byte("teams-own-page-secret"), "https://bot.example.com"
	in := mergeQuestion("late-page")
	in.RequestedBy = []string{carol.AADObjectID}
	rec := b.ask(in)
	b.click(alice, map[string]any{"inquiry": rec.Key, "value": "merge"})
	r := b.clickVerb(bob, adaptivecard.VerbPage, map[string]any{"inquiry": rec.Key})
	if !strings.Contains(string(r.Value), "already decided") || strings.Contains(string(r.Value), inquiry.LinkPath) {
		t.Fatalf("want the card saying it was decided, without a link, got %s %s", r.Type, r.Value)
	}
}

// TestNamesOnTheCards: the tally and the outcome name people by the name their click carried
// (from.name), else by the conversation's roster, else by their id; a name read from the
// roster is kept, for the invoke's card and the update everybody sees alike.
func TestNamesOnTheCards(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, databaseURL string) {
		b := setup(t, databaseURL)
		b.dispatch()
		b.fake.AddMember(teamsfake.Person{ID: bob.ID, Name: "Bob Roster", AADObjectID: bob.AADObjectID})
		in := mergeQuestion("names")
		two := 2
		in.Approvals = &two
		rec := b.askTeams(in, "19:names@thread.tacv2", alice.AADObjectID, bob.AADObjectID, dave.AADObjectID)
		nameless := func(p teamsfake.Person) teamsfake.Person { p.Name = ""; return p }

		r := b.click(alice, map[string]any{"inquiry": rec.Key, "value": "merge"})
		if !strings.Contains(string(r.Value), "1 of 2 for Merge: Alice)") {
			t.Fatalf("alice's vote: want the tally by her name, got %s", r.Value)
		}
		r = b.click(nameless(dave), map[string]any{"inquiry": rec.Key, "value": "hold"})
		if !strings.Contains(string(r.Value), "1 of 2 for Hold: "+dave.AADObjectID) {
			t.Fatalf("dave, whom nothing names: want his id in the tally, got %s", r.Value)
		}
		r = b.click(nameless(bob), map[string]any{"inquiry": rec.Key, "value": "merge"})
		want := "Merge — chosen by Alice and Bob Roster"
		if !strings.Contains(string(r.Value), want) {
			t.Fatalf("bob's deciding vote: want %q, got %s", want, r.Value)
		}
		testkit.Eventually(t, 10*time.Second, "the card everybody sees to name them", func() bool {
			calls := b.fake.Calls()
			last := calls[len(calls)-1]
			return last.Method == http.MethodPut && strings.Contains(string(last.Card()), want)
		})
		if got, _ := b.svc.Get(b.ctx, rec.Key); got.Answer.Votes[0].By != alice.AADObjectID {
			t.Errorf("the record should keep ids, got %+v", got.Answer.Votes)
		}
		// Every name is known now: a late click's card names them again without the roster.
		read := b.fake.MemberLookups()
		if read == 0 {
			t.Fatal("the roster was never read for bob's name")
		}
		r = b.click(dave, map[string]any{"inquiry": rec.Key, "value": "merge"})
		if !strings.Contains(string(r.Value), want) || !strings.Contains(string(r.Value), "already decided") {
			t.Fatalf("a late click: want the decision by their names, got %s", r.Value)
		}
		if n := b.fake.MemberLookups(); n != read {
			t.Errorf("the late click's card read the roster again: %d reads, then %d", read, n)
		}
	})
}

// TestPlainQuestionLinksItsPage: a question that names nobody shows View all to its page, the
// general link everybody there may use; without a public address a named question shows no
// button it could not keep.
func TestPlainQuestionLinksItsPage(t *testing.T) {
	b := setup(t, storagetest.SQLiteURL(t))
	b.svc.LinkSecret, b.svc.PublicURL = []byte("teams-own-page-secret"), "https://bot.example.com"
	b.dispatch()
	in := inquiry.Inquiry{ID: "plain", Kind: inquiry.KindConfirm, Question: "Run it?",
		Proposal: &inquiry.Proposal{Format: inquiry.FormatText, Content: longProposal(60)}}
	b.askTeams(in, "19:plain@thread.tacv2")
	if a := actions(t, b.calls(1)[0].Card())["View all"]; a["type"] != "Action.OpenUrl" || !strings.HasPrefix(a["url"].(string), "https://bot.example.com"+inquiry.LinkPath) {
		t.Fatalf("a plain question: want View all to its page, got %v", a)
	}

	b.svc.PublicURL = "" // set before the next post, which reads it
	in.ID = "named"
	b.askTeams(in, "19:named@thread.tacv2", alice.AADObjectID)
	if a, ok := actions(t, b.calls(2)[1].Card())["View all"]; ok {
		t.Fatalf("a named question on a server without a public address: want no View all, got %v", a)
	}
}
