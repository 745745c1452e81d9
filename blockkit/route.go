package blockkit

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/slack-go/slack"
)

// The routing scheme: see the package documentation. These strings are a contract with every
// message already posted in Slack; add to them, never rename.
const (
	// BlockIDPrefix starts the block_id of every block this package renders in a message.
	BlockIDPrefix = "inq|"

	ActionChoose      = "inq:choose"       // a single-choice button; the action_id is "inq:choose:<n>", the value the option value
	ActionSelect      = "inq:select"       // the static_select of a single choice with 6..12 options
	ActionPick        = "inq:pick"         // the checkboxes or multi_static_select of a multiple choice; read on submit
	ActionSubmit      = "inq:submit"       // the Submit button of a multiple choice
	ActionOwnWords    = "inq:own_words"    // opens OwnWordsModal
	ActionOpenText    = "inq:open_text"    // opens TextModal
	ActionOpenConfirm = "inq:open_confirm" // opens ConfirmModal
	ActionOpenPage    = "inq:open_page"    // the "Answer in a browser" link button: only acknowledged
	ActionOpenEdit    = "inq:open_edit"    // opens EditModal of an editable proposal
	// ActionPersonalPage is "View all" or "Edit on the web" where the question names who may
	// answer it: no URL in the shared message; its click gets the clicker a link of their own.
	// The value is PersonalView or PersonalEdit.
	ActionPersonalPage = "inq:personal_page"

	CallbackText     = "inq:text"      // callback_id of TextModal
	CallbackConfirm  = "inq:confirm"   // callback_id of ConfirmModal
	CallbackOwnWords = "inq:own_words" // callback_id of OwnWordsModal
	CallbackReason   = "inq:reason"    // callback_id of ReasonModal
	CallbackEdit     = "inq:edit"      // callback_id of EditModal
	// CallbackPersonalLink is the callback_id of PersonalLinkModal, which submits nothing.
	CallbackPersonalLink = "inq:personal_link"

	// Input blocks of the modals: stable, so errors can be attached to them with
	// slack.NewErrorsViewSubmissionResponse(map[string]string{blockkit.BlockAnswer: "…"}).
	BlockAnswer      = "inq:answer" // the answer: a text input, or the Yes/No radio buttons
	BlockNote        = "inq:note"   // the optional note of a Confirm with allow_text
	ActionAnswerText = "inq:answer_text"
	ActionYesNo      = "inq:yes_no"
	ActionNote       = "inq:note"
	BlockReason      = "inq:reason" // the reason of ReasonModal, and of ConfirmModal when the inquiry asks for one
	ActionReason     = "inq:reason"
	ActionChoice     = "inq:choice"  // the answer of ReasonModal for a choice: radio buttons, checkboxes or a select
	BlockContent     = "inq:content" // the proposal as edited in EditModal
	ActionContent    = "inq:content"
)

// MaxKeyChars is the longest inquiry key whose block_ids stay within Slack's 255 characters.
const MaxKeyChars = 200

// Revisions of a message, the middle part of a block_id. Slack wants new block_ids whenever a
// message is updated, so the resolved message never reuses the question's.
const (
	revQuestion = "q"
	revResolved = "r"
	revNotice   = "n"
	revView     = "v"
)

// blockID builds "inq|<key>|<rev>-<part>".
func blockID(key, rev, part string) string {
	return BlockIDPrefix + key + "|" + rev + "-" + part
}

// ParseBlockID returns the inquiry key a block_id carries. ok is false for a block that is not
// ours. The key is everything between the prefix and the last "|", so it survives even a key
// with a "|" in it.
func ParseBlockID(blockID string) (key string, ok bool) {
	rest, found := strings.CutPrefix(blockID, BlockIDPrefix)
	if !found {
		return "", false
	}
	i := strings.LastIndexByte(rest, '|')
	if i <= 0 {
		return "", false
	}
	return rest[:i], true
}

// chooseAction is the action_id of the button for option n: Slack wants action_ids unique
// within a block.
func chooseAction(n int) string { return ActionChoose + ":" + strconv.Itoa(n) }

// BaseAction returns which of our actions an action_id is (one of the Action… constants, with
// the option index of ActionChoose dropped), or "" for an action that is not ours.
func BaseAction(actionID string) string {
	switch actionID {
	case ActionSelect, ActionPick, ActionSubmit, ActionOwnWords, ActionOpenText, ActionOpenConfirm, ActionOpenEdit, ActionExtend, ActionPersonalPage:
		return actionID
	}
	if n, ok := strings.CutPrefix(actionID, ActionChoose+":"); ok {
		if _, err := strconv.Atoi(n); err == nil {
			return ActionChoose
		}
	}
	return ""
}

// ReadAction reads a block action from one of our messages. For an answering action — a choice
// button, the single-choice select, or the Submit of a multiple choice — it returns the key and
// the reply, ok true; the reply is then checked with inquiry.CheckAnswer. A Submit with nothing
// ticked returns an empty list, so CheckAnswer can tell the person to choose. Actions that
// only open a modal (see ModalFor), ticks, and anything not ours return ok false.
func ReadAction(ic slack.InteractionCallback, action *slack.BlockAction) (key string, reply inquiry.Reply, ok bool) {
	if action == nil {
		return "", reply, false
	}
	key, ok = ParseBlockID(action.BlockID)
	if !ok {
		return "", reply, false
	}
	switch BaseAction(action.ActionID) {
	case ActionChoose:
		if action.Value == "" {
			return "", reply, false
		}
		return key, inquiry.Reply{Value: inquiry.One(action.Value)}, true
	case ActionSelect:
		if action.SelectedOption.Value == "" {
			return "", reply, false
		}
		return key, inquiry.Reply{Value: inquiry.One(action.SelectedOption.Value)}, true
	case ActionSubmit:
		return key, inquiry.Reply{Value: inquiry.Many(picked(ic, key)...)}, true
	}
	return "", reply, false
}

// picked returns the values ticked in the pick element of the inquiry's message: the message
// state of a block action (or the view state, were the message shown in a modal).
func picked(ic slack.InteractionCallback, key string) []string {
	var states []map[string]map[string]slack.BlockAction
	if ic.BlockActionState != nil {
		states = append(states, ic.BlockActionState.Values)
	}
	if ic.View.State != nil {
		states = append(states, ic.View.State.Values)
	}
	for _, values := range states {
		for bid, actions := range values {
			if k, ok := ParseBlockID(bid); !ok || k != key {
				continue
			}
			if a, ok := actions[ActionPick]; ok {
				vals := make([]string, 0, len(a.SelectedOptions))
				for _, o := range a.SelectedOptions {
					vals = append(vals, o.Value)
				}
				return vals
			}
		}
	}
	return nil
}

// ModalFor returns the modal a block action asks to open — TextModal, ConfirmModal or
// OwnWordsModal — for the record the action's key named; ok is false for any other action.
func ModalFor(rec *inquiry.Record, actionID string) (slack.ModalViewRequest, bool) {
	switch BaseAction(actionID) {
	case ActionOpenText:
		return TextModal(rec), true
	case ActionOpenConfirm:
		return ConfirmModal(rec), true
	case ActionOwnWords:
		return OwnWordsModal(rec), true
	case ActionOpenEdit:
		if CanEditInSlack(&rec.Inquiry) {
			return EditModal(rec), true
		}
	}
	return slack.ModalViewRequest{}, false
}

// ErrNotOurs is returned by ReadSubmission for a view this package did not render.
var ErrNotOurs = errors.New("not an inquiry view")

// ReadSubmission reads a view_submission of one of our modals: the key from private_metadata
// and the reply from the view's state (the text of TextModal or OwnWordsModal; the Yes/No and
// the note of ConfirmModal). An empty answer comes back as an empty reply for
// inquiry.CheckAnswer to refuse with a sentence; only a view that is not ours, or one that lost
// its key or its state, is an error.
func ReadSubmission(view slack.View) (key string, reply inquiry.Reply, err error) {
	switch view.CallbackID {
	case CallbackText, CallbackOwnWords, CallbackConfirm, CallbackReason, CallbackEdit:
	default:
		return "", reply, fmt.Errorf("read view submission: callback_id %q: %w", view.CallbackID, ErrNotOurs)
	}
	key = view.PrivateMetadata
	if key == "" {
		return "", reply, fmt.Errorf("read view submission: %s has no inquiry key in private_metadata", view.CallbackID)
	}
	if view.State == nil {
		return "", reply, fmt.Errorf("read view submission: %s for %s has no state", view.CallbackID, key)
	}
	if view.CallbackID == CallbackEdit {
		reply, err = readEdit(view, key)
		if err != nil {
			return "", reply, err
		}
		return key, reply, nil
	}
	answer, found := view.State.Values[BlockAnswer]
	if !found {
		return "", reply, fmt.Errorf("read view submission: %s for %s has no %s block in its state", view.CallbackID, key, BlockAnswer)
	}
	reason, asked := view.State.Values[BlockReason][ActionReason]
	switch view.CallbackID {
	case CallbackConfirm:
		if v := answer[ActionYesNo].SelectedOption.Value; v != "" {
			reply.Value = inquiry.One(v)
		}
		reply.Text = view.State.Values[BlockNote][ActionNote].Value
		if asked {
			reply.Text = reason.Value
		}
		return key, reply, nil
	case CallbackReason:
		for _, id := range []string{ActionYesNo, ActionChoice} {
			a, ok := answer[id]
			switch {
			case !ok:
			case a.Type == slack.ActionType(slack.METCheckboxGroups) || a.Type == slack.ActionType(slack.MultiOptTypeStatic):
				vals := make([]string, 0, len(a.SelectedOptions))
				for _, o := range a.SelectedOptions {
					vals = append(vals, o.Value)
				}
				reply.Value = inquiry.Many(vals...) // none ticked: an empty list, refused with a sentence
			case a.SelectedOption.Value != "":
				reply.Value = inquiry.One(a.SelectedOption.Value)
			}
		}
		reply.Text = reason.Value
		return key, reply, nil
	}
	reply.Text = answer[ActionAnswerText].Value
	return key, reply, nil
}
