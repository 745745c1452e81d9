package slackapp

import (
	"context"
	"fmt"
	"time"

	"github.com/slack-go/slack"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/inquiry-bot/bot/inquiry"
)

// Personal links: a question that names who may answer it carries no link in its shared message
// (a link everybody in the channel holds would let anybody answer), so its "View all" and "Edit
// on the web" are buttons without a URL (blockkit.ActionPersonalPage). A click — verified as
// every interaction is — asks the service for a link of the clicker's own
// (inquiry.Service.PersonalLink, judged by MayAnswer as their click on an answer would be), and
// the link goes to them alone, in an ephemeral; a refusal is told the same way.

const (
	sayPersonalView  = "Here is a link of your own to the whole proposal, where you may answer too. It answers as you, so keep it to yourself; it works for %s at most, while the question is open."
	sayPersonalEdit  = "Here is a link of your own to edit the proposal and approve it on the web. It answers as you, so keep it to yourself; it works for %s at most, while the question is open."
	sayNoLinkJustNow = "your link could not be made just now: please click the button again in a moment."
)

// personalPage serves a click on a personal-link button of the inquiry with key: the clicker's
// own link, or why not, in an ephemeral.
func (a *App) personalPage(ctx context.Context, ic slack.InteractionCallback, key, what string) {
	user := ic.User.ID
	rec, no := a.mayAnswer(ctx, key, user)
	if !no.empty() {
		a.tell(whereOf(ic, rec), user, no)
		return
	}
	at := whereOf(ic, rec)
	link, err := a.svc.PersonalLink(ctx, rec.Key, a.identity(ctx, rec.Key, user))
	switch inquiry.ErrorCode(err) {
	case "":
		a.log.InfoContext(ctx, "gave a personal link in slack", "key", rec.Key, "user", user) // never the link: it answers
		if ic.Container.Type == "view" && ic.View.Type == slack.VTHomeTab {
			// From the App Home: a modal there, not an ephemeral in a channel out of sight.
			sentence, label := personalWords(what)
			a.open(ctx, ic, rec, blockkit.PersonalLinkModal(rec, sentence, label, link))
			return
		}
		a.tell(at, user, sayPersonalLink(link, what))
	case inquiry.CodeForbidden:
		a.tell(at, user, sayForbidden(err))
	case inquiry.CodeAlreadyResolved:
		out := rec
		if cur, gerr := a.svc.Get(ctx, rec.Key); gerr == nil {
			out = cur
		}
		a.tell(at, user, sayResolved(out, a.now()))
	case inquiry.CodeNotFound:
		a.tell(at, user, say(sayGone))
	case inquiry.CodeUnavailable, inquiry.CodeBadRequest:
		a.tell(at, user, quoted(inquiry.ErrorMessage(err)))
	default:
		a.log.WarnContext(ctx, "make a personal link in slack", "key", rec.Key, "user", user, "err", err)
		a.tell(at, user, say(sayNoLinkJustNow))
	}
}

// sayPersonalLink gives link to the person it is for: a sentence saying it is theirs, and a link
// button to it ("Open the whole proposal", or for what == blockkit.PersonalEdit "Edit on the
// web").
func sayPersonalLink(link, what string) saying {
	sentence, label := personalWords(what)
	s := say(sentence)
	s.button = &slack.ButtonBlockElement{Type: slack.METButton, ActionID: blockkit.ActionOpenPage,
		Text: slack.NewTextBlockObject(slack.PlainTextType, label, false, false), URL: link, Style: slack.StylePrimary}
	return s
}

// personalWords are the sentence and the button's label that give a personal link for what
// (blockkit.PersonalView or PersonalEdit).
func personalWords(what string) (sentence, label string) {
	sentence, label = sayPersonalView, "Open the whole proposal"
	if what == blockkit.PersonalEdit {
		sentence, label = sayPersonalEdit, "Edit on the web"
	}
	return fmt.Sprintf(sentence, hours(inquiry.PersonalLinkTTL)), label
}

// hours writes d in whole hours: "24 hours".
func hours(d time.Duration) string {
	return fmt.Sprintf("%d hours", int(d/time.Hour))
}
