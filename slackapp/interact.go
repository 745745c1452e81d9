package slackapp

import (
	"context"
	"errors"
	"time"

	"github.com/slack-go/slack"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/inquiry-bot/bot/inquiry"
)

// openViewTimeout keeps views.open inside Slack's three seconds: the trigger_id dies then anyway.
const openViewTimeout = 2500 * time.Millisecond

// handleInteraction serves one interaction, from HTTP or Socket Mode. response is what to answer
// Slack with (nil: an empty 200 ack); an error means the interaction could not be served at all.
func (a *App) handleInteraction(ctx context.Context, ic slack.InteractionCallback) (response any, err error) {
	switch ic.Type {
	case slack.InteractionTypeBlockActions:
		for _, act := range ic.ActionCallback.BlockActions {
			a.blockAction(ctx, ic, act)
		}
		return nil, nil
	case slack.InteractionTypeViewSubmission:
		if r := a.viewSubmission(ctx, ic); r != nil {
			return r, nil
		}
		return nil, nil
	}
	return nil, nil // view_closed, shortcuts, …: nothing to do
}

// where is the place a person acted in: ephemerals about it go there.
type where struct {
	channel  string
	threadTS string
}

func whereOf(ic slack.InteractionCallback, rec *inquiry.Record) where {
	w := where{channel: ic.Container.ChannelID, threadTS: ic.Container.ThreadTs}
	if w.channel == "" {
		w.channel = ic.Channel.ID
	}
	if w.channel == "" && rec != nil {
		w = where{channel: rec.Slack.Channel, threadTS: rec.Slack.ThreadTS}
	}
	return w
}

// blockAction serves a click or a selection in one of our messages.
func (a *App) blockAction(ctx context.Context, ic slack.InteractionCallback, act *slack.BlockAction) {
	if act == nil {
		return
	}
	user := ic.User.ID
	switch blockkit.BaseAction(act.ActionID) {
	case "", blockkit.ActionPick:
		return // not ours, or a tick read later by Submit
	case blockkit.ActionOpenText, blockkit.ActionOpenConfirm, blockkit.ActionOwnWords, blockkit.ActionOpenEdit:
		key, ok := blockkit.ParseBlockID(act.BlockID)
		if !ok {
			key = act.Value
		}
		a.openModal(ctx, ic, key, act.ActionID)
		return
	case blockkit.ActionExtend:
		a.extend(ctx, ic, act.Value)
		return
	case blockkit.ActionPersonalPage:
		if key, ok := blockkit.ParseBlockID(act.BlockID); ok {
			a.personalPage(ctx, ic, key, act.Value)
		}
		return
	}
	key, reply, ok := blockkit.ReadAction(ic, act)
	if !ok {
		return
	}
	rec, no := a.mayAnswer(ctx, key, user)
	if !no.empty() {
		a.tell(whereOf(ic, rec), user, no)
		return
	}
	if inquiry.NeedsReason(&rec.Inquiry, reply.Value.First(), reply.Declined) {
		// The answer must say why: the reason modal, the answer preselected, instead of
		// recording a click that would be refused.
		a.open(ctx, ic, rec, blockkit.ReasonModal(rec, reply.Value))
		return
	}
	a.answer(ctx, rec, reply, user, whereOf(ic, rec))
	if ic.Container.Type == "view" && ic.View.Type == slack.VTHomeTab {
		// Clicked in the Home tab: it shows the vote at once (a resolution refreshes it too).
		a.refreshHome(user)
	}
}

// extend gives the inquiry more time for a person who may answer it (the same permit), and
// tells them the new deadline or why not. The message update is the dispatcher's.
func (a *App) extend(ctx context.Context, ic slack.InteractionCallback, key string) {
	user := ic.User.ID
	rec, no := a.mayAnswer(ctx, key, user)
	if !no.empty() {
		a.tell(whereOf(ic, rec), user, no)
		return
	}
	out, err := a.svc.Extend(ctx, rec.Key, 0, a.identity(ctx, rec.Key, user))
	switch inquiry.ErrorCode(err) {
	case "":
		a.log.InfoContext(ctx, "extended in slack", "key", rec.Key, "user", user)
		a.tell(whereOf(ic, out), user, say(blockkit.Escape(inquiry.ExtendedText(out, 0))))
	case inquiry.CodeAlreadyResolved:
		if out == nil {
			out = rec
		}
		a.tell(whereOf(ic, out), user, sayResolved(out, a.now()))
	case inquiry.CodeForbidden, inquiry.CodeBadRequest:
		a.tell(whereOf(ic, rec), user, quoted(inquiry.ErrorMessage(err)))
	default:
		a.log.WarnContext(ctx, "extend in slack", "key", rec.Key, "user", user, "err", err)
		a.tell(whereOf(ic, rec), user, say(sayTryAgain))
	}
}

// openModal opens the modal an action asks for, at once: the trigger_id is good for three
// seconds and once. A person who may not answer, or who comes too late, is told so instead.
func (a *App) openModal(ctx context.Context, ic slack.InteractionCallback, key, actionID string) {
	user := ic.User.ID
	rec, no := a.mayAnswer(ctx, key, user)
	if !no.empty() {
		a.tell(whereOf(ic, rec), user, no)
		return
	}
	view, ok := blockkit.ModalFor(rec, actionID)
	if !ok {
		return
	}
	a.open(ctx, ic, rec, view)
}

// open opens view with the interaction's trigger_id, or tells the person it could not.
func (a *App) open(ctx context.Context, ic slack.InteractionCallback, rec *inquiry.Record, view slack.ModalViewRequest) {
	octx, cancel := context.WithTimeout(ctx, openViewTimeout)
	defer cancel()
	if _, err := a.client.OpenViewContext(octx, ic.TriggerID, view); err != nil {
		a.log.WarnContext(ctx, "open modal", "key", rec.Key, "user", ic.User.ID, "callback_id", view.CallbackID, "err", err)
		a.tell(whereOf(ic, rec), ic.User.ID, sayNoModal(rec))
	}
}

// mayAnswer loads the inquiry and checks that user may answer it now. no is the sentence to
// tell them when not, empty when they may (rec may then be nil). A click while another's answer
// is being recorded reads the inquiry pending; its own answer then waits for that one in the
// service (inquiry.Flights) and is told who decided.
func (a *App) mayAnswer(ctx context.Context, key, user string) (rec *inquiry.Record, no saying) {
	if user == "" {
		// Slack names who acted in every payload; one that names nobody answers nothing (and
		// an answer by nobody would pass any list of answerers left empty).
		a.log.WarnContext(ctx, "slack payload names no user: nothing answered", "key", key)
		return nil, say(sayNobody)
	}
	rec, err := a.svc.Get(ctx, key)
	if err != nil {
		if inquiry.ErrorCode(err) == inquiry.CodeNotFound {
			return nil, say(sayGone)
		}
		a.log.WarnContext(ctx, "load inquiry for an answer", "key", key, "err", err)
		return nil, say(sayTryAgain)
	}
	if refusal := a.refusal(ctx, rec, user); !refusal.empty() {
		return rec, refusal
	}
	if rec.Status != inquiry.StatusPending {
		return rec, sayResolved(rec, a.now())
	}
	return rec, saying{}
}

// record records a person's reply to rec (mayAnswer's read, not read again) through the service.
func (a *App) record(ctx context.Context, rec *inquiry.Record, reply inquiry.Reply, user string) (*inquiry.Record, error) {
	return a.svc.AnswerRead(inquiry.WithVia(ctx, inquiry.ViaSlack), rec, reply, a.identity(ctx, rec.Key, user))
}

// answer records a person's reply through the service (the first answer wins there) and tells
// them when it was not taken. The message update is the dispatcher's, enqueued by the service.
func (a *App) answer(ctx context.Context, rec *inquiry.Record, reply inquiry.Reply, user string, at where) {
	out, err := a.record(ctx, rec, reply, user)
	switch inquiry.ErrorCode(err) {
	case "":
		a.log.InfoContext(ctx, "answered in slack", "key", rec.Key, "user", user)
		a.tell(at, user, sayVoted(rec, out, user))
	case inquiry.CodeForbidden:
		a.tell(at, user, sayForbidden(err))
	case inquiry.CodeAlreadyResolved:
		if out == nil {
			out = rec
		}
		a.tell(at, user, sayResolved(out, a.now()))
	case inquiry.CodeInvalidAnswer:
		a.tell(at, user, sayInvalid(rec, reply, err))
	case inquiry.CodeNotFound:
		a.tell(at, user, say(sayGone))
	default:
		a.log.WarnContext(ctx, "record a slack answer", "key", rec.Key, "user", user, "err", err)
		a.tell(at, user, say(sayTryAgain))
	}
}

// viewSubmission serves a submitted modal: the answer is read from the view, and an answer that
// cannot be taken is shown on the input block so the person can fix it.
func (a *App) viewSubmission(ctx context.Context, ic slack.InteractionCallback) *slack.ViewSubmissionResponse {
	key, reply, err := blockkit.ReadSubmission(ic.View)
	if errors.Is(err, blockkit.ErrNotOurs) {
		return nil
	}
	if err != nil {
		a.log.WarnContext(ctx, "unreadable modal submission", "err", err)
		return slack.NewErrorsViewSubmissionResponse(map[string]string{blockkit.BlockAnswer: sayLostForm})
	}
	user := ic.User.ID
	rec, no := a.mayAnswer(ctx, key, user)
	if !no.empty() {
		if rec == nil && no.is(sayTryAgain) {
			return slack.NewErrorsViewSubmissionResponse(map[string]string{blockkit.BlockAnswer: sayTryAgainPlain})
		}
		// Refused or too late: close the modal and say why where the question is.
		a.tell(whereOf(ic, rec), user, no)
		return nil
	}
	if ic.View.CallbackID == blockkit.CallbackEdit {
		reply.Content, _ = rec.Proposal.Edit(reply.Content) // the proposal's line endings; unchanged, the proposal itself
	}
	if ic.View.CallbackID == blockkit.CallbackOwnWords && reply.Value.IsZero() {
		reply, _ = inquiry.ReplyOf(&rec.Inquiry, reply.Text, false) // typed words are read one way everywhere
	}
	out, err := a.record(ctx, rec, reply, user)
	switch inquiry.ErrorCode(err) {
	case "":
		a.log.InfoContext(ctx, "answered in a slack modal", "key", key, "user", user)
		a.tell(whereOf(ic, rec), user, sayVoted(rec, out, user))
		return nil
	case inquiry.CodeForbidden:
		a.tell(whereOf(ic, rec), user, say(sayRequester))
		return nil
	case inquiry.CodeInvalidAnswer:
		if inquiry.ReasonMissing(&rec.Inquiry, reply) {
			// Slack's required field keeps an empty reason out; blanks get the service's sentence.
			return slack.NewErrorsViewSubmissionResponse(map[string]string{blockkit.BlockReason: plainMessage(err)})
		}
		block := blockkit.BlockAnswer
		switch {
		case inquiry.ErrorField(err) == "text" && ic.View.CallbackID == blockkit.CallbackConfirm && rec.AllowText:
			block = blockkit.BlockNote
		case ic.View.CallbackID == blockkit.CallbackEdit && (inquiry.ErrorField(err) == "content" || rec.Kind == inquiry.KindConfirm):
			block = blockkit.BlockContent // the edit modal of a confirm has no answer block
		}
		return slack.NewErrorsViewSubmissionResponse(map[string]string{block: plainInvalid(rec, reply, err)})
	case inquiry.CodeAlreadyResolved:
		if out == nil {
			out = rec
		}
		a.tell(whereOf(ic, out), user, sayResolved(out, a.now()))
		return nil
	case inquiry.CodeNotFound:
		a.tell(whereOf(ic, rec), user, say(sayGone))
		return nil
	default:
		a.log.WarnContext(ctx, "record a slack modal answer", "key", key, "user", user, "err", err)
		return slack.NewErrorsViewSubmissionResponse(map[string]string{blockkit.BlockAnswer: sayTryAgainPlain})
	}
}

// ephemeralTimeout bounds one ephemeral sent after the ack.
const ephemeralTimeout = 10 * time.Second

// tell sends user an ephemeral in the background: the ack must not wait for Slack. It is paced
// with the channel's other messages (App.ephemeral). It goes as blocks, the asker's and people's
// text in plain_text objects (saying), with the notification text beside them.
func (a *App) tell(at where, user string, s saying) {
	if at.channel == "" || user == "" || s.empty() {
		return
	}
	a.bg.Add(1)
	go func() {
		defer a.bg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), ephemeralTimeout)
		defer cancel()
		if err := a.ephemeral(ctx, at.channel, at.threadTS, user, s.msgOptions()...); err != nil {
			a.log.Warn("send an ephemeral", "channel", at.channel, "user", user, "err", err)
		}
	}()
}
