// Package web is the answer page behind signed links (the README's Answer in a browser): GET
// /a/<token> shows the question and never answers; POST /a/<token> with step=confirm shows what
// would be sent, and only the second POST, step=send, answers (step=back, Take back, shows the
// question again with what was typed and edited, carried in the form). It only translates: the
// link, the form token and the answer are the service's to check (inquiry/link.go), and a refusal
// is the service's sentence on a page with the status its code maps to. An inquiry's proposal is shown
// whole (a diff coloured by line), and an editable one in a textarea whose content the answer
// carries; once resolved, the page shows what was proposed and the edited version approved
// (proposal.go). Works without JavaScript; templates and the stylesheet are embedded.
package web

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/internal/httpstatus"
	"github.com/inquiry-bot/bot/internal/ratelimit"
)

//go:embed templates/page.html
var pageHTML string

//go:embed page.css
var pageCSS string

// page shows every text of the asker's through inquiry.Printed (a character that would reorder
// or hide part of it shown as a visible code, never obeyed) inside <bdi>, so that nothing it holds
// reorders the page's own words, and the question and context under a label that says whose
// words they are.
var page = template.Must(template.New("page").Funcs(template.FuncMap{"printed": inquiry.Printed}).Parse(pageHTML))

// styleHash is the CSP source of the one inline stylesheet: no 'unsafe-inline' is needed.
var styleHash = func() string {
	sum := sha256.Sum256([]byte(pageCSS))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}()

// csp allows nothing but the page's own stylesheet and forms posted to itself: no script, no
// frame around it, no other origin.
var csp = "default-src 'none'; style-src " + styleHash + "; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// Defaults of Config.
const (
	// DefaultRate and DefaultBurst limit the requests one link makes: a person clicks a few
	// times a minute; a script hammering a link is stopped.
	DefaultRate  rate.Limit = 1 // a second, sustained
	DefaultBurst            = 20
	// maxLinks bounds the limiter's table; past it new links share one bucket until idle ones go.
	maxLinks = 10_000
	// maxForm bounds a form's body: an edited proposal at its bound in percent-encoding (three
	// characters a byte at worst), the ceiling's text and a few fields.
	maxForm = 3*inquiry.MaxProposalBytes + 64<<10
)

// Config is what the page needs. Service is required.
type Config struct {
	Service *inquiry.Service
	// Logger hears failures; a line names the inquiry, never the token.
	Logger *slog.Logger
	// Rate and Burst limit each link's requests; 0 means DefaultRate and DefaultBurst.
	Rate  rate.Limit
	Burst int
}

// Handler serves the answer page. Create it with New.
type Handler struct {
	svc   *inquiry.Service
	log   *slog.Logger
	links *ratelimit.Table
	now   func() time.Time
}

// New returns the page's handler. It panics when cfg.Service is nil: a wiring bug.
func New(cfg Config) *Handler {
	if cfg.Service == nil {
		panic("web.New: Config.Service is nil")
	}
	h := &Handler{svc: cfg.Service, log: cfg.Logger, now: time.Now}
	if h.log == nil {
		h.log = slog.Default()
	}
	if cfg.Rate == 0 {
		cfg.Rate = DefaultRate
	}
	if cfg.Burst <= 0 {
		cfg.Burst = DefaultBurst
	}
	h.links = ratelimit.New(cfg.Rate, cfg.Burst, maxLinks)
	return h
}

// allow charges one request to the link of token, a token the service verified.
func (h *Handler) allow(token string) bool {
	// By a digest of the token, never the token itself.
	sum := sha256.Sum256([]byte(token))
	_, ok := h.links.Take(hex.EncodeToString(sum[:12]), h.now())
	return ok
}

// view is what the template shows.
type view struct {
	View, State, Title string
	CSS                template.CSS
	Action             string // the page's own path, the form's target
	Form               string // the form token
	Rec                *inquiry.Record
	Who                string

	Deadline, DeadlineISO, Assumed, Asked, Tally string
	Offered                                      []inquiry.Option
	Multiple, Words                              bool
	Reason                                       string // the label of the reason field, "" for none
	MaxChars                                     int
	Problem                                      string

	// The confirmation: the reply to send again, and how it reads.
	Values   []string
	Typed    string
	Decision string

	// Proposal is the inquiry's proposal as the page shows it; Edit is the content its textarea
	// holds (the proposal's, or the person's edit shown again), and on the confirmation the edit
	// to send, "" for none.
	Proposal *shownProposal
	Edit     string
	// Approved is, on a resolved inquiry's page, the edited version approved (under Proposal,
	// what was proposed); nil when no edit was approved.
	Approved *shownProposal

	Heading, What string
}

// protect sets the security headers every response of the page carries, refusals included.
func protect(hd http.Header) {
	hd.Set("Content-Security-Policy", csp)
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Cache-Control", "no-store")
	hd.Set("Cross-Origin-Opener-Policy", "same-origin")
}

// Refuse answers a request for the page that the server refused before the page saw it (the
// limit of requests without a token per address): the refusal's sentence on the page, with its
// security headers, as a person in a browser reads it.
func (h *Handler) Refuse(w http.ResponseWriter, r *http.Request, err error) {
	protect(w.Header())
	h.refuse(w, r, "", nil, nil, err)
}

// ServeHTTP serves GET and POST of LinkPath + token.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	protect(hd)

	token := strings.TrimPrefix(r.URL.Path, inquiry.LinkPath)
	// Only a link the bot signed is charged to a limit of its own, and never to its address (the
	// gateway lets it through uncharged: behind a proxy every visitor shares one). A forgery,
	// refused below without a read, is the gateway's per-address limit's, and takes no place in
	// the table. The token is the one spelling the service accepts, so the key is the link's.
	if h.svc.LinkSigned(token) && !h.allow(token) {
		hd.Set("Retry-After", "10")
		h.refuse(w, r, token, nil, nil, inquiry.Errorf(inquiry.CodeRateLimited, "this link was opened too often in a short time: wait a minute and open it again"))
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead: // HEAD: the GET's status and headers, never an answer
		rec, l, err := h.svc.OpenLink(r.Context(), token)
		if err != nil {
			h.refuse(w, r, token, rec, l, err)
			return
		}
		h.question(w, token, rec, l, "", "", "", http.StatusOK)
	case http.MethodPost:
		h.post(w, r, token)
	default:
		hd.Set("Allow", "GET, HEAD, POST")
		h.refuse(w, r, token, nil, nil, inquiry.Errorf(inquiry.CodeBadRequest, "%s is not how this page is used: open the link in a browser", r.Method))
	}
}

// post reads the form and takes the step it names: confirm shows what would be sent, send
// answers.
func (h *Handler) post(w http.ResponseWriter, r *http.Request, token string) {
	ctx := r.Context()
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
		h.refuse(w, r, token, nil, nil, inquiry.Errorf(inquiry.CodeUnsupportedMediaType, "this page takes its own form only: open the link in a browser and answer there"))
		return
	}
	if !sameOrigin(r) {
		h.refuse(w, r, token, nil, nil, inquiry.Errorf(inquiry.CodeForbidden, "this answer was sent from another site: open the link you were sent and answer on its page"))
		return
	}
	// A link the bot never signed is refused before its body is read: a forgery gets nothing
	// of ours parsed, and is told what a forged GET is told.
	if !h.svc.LinkSigned(token) {
		_, l, err := h.svc.OpenLink(ctx, token)
		h.refuse(w, r, token, nil, l, err)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		code := inquiry.CodeBadRequest
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			code = inquiry.CodeTooLarge
		}
		h.refuse(w, r, token, nil, nil, inquiry.Errorf(code, "the form could not be read (it is too large or malformed): open the link again and answer on its page"))
		return
	}
	f := r.PostForm
	if err := h.svc.CheckForm(token, f.Get("csrf"), f.Get("inquiry")); err != nil {
		h.refuse(w, r, token, nil, nil, err)
		return
	}
	values, typed := f["value"], f.Get("text")
	edit := f.Get("content")
	reply := inquiry.Reply{Text: typed}
	switch {
	case len(values) > 1:
		reply.Value = inquiry.Many(values...)
	case len(values) == 1:
		reply.Value = inquiry.One(values[0])
	default:
		// Words alone (the own-words box) are read as a thread reply's are: "Web, CLI" ticks
		// both, "Hold: the freeze is on" chooses Hold with its reason. The confirmation shows
		// the reading and carries the words as typed, to be read the same way on send.
		if rec, _, err := h.svc.OpenLink(ctx, token); err == nil {
			reply, _ = inquiry.ReplyOf(&rec.Inquiry, typed, false)
		}
	}
	if edit != "" {
		if rec, _, err := h.svc.OpenLink(ctx, token); err == nil {
			edit = edited(rec.Proposal, edit)
		}
		reply.Content = edit
	}
	// failed shows a refused step: the question again, with the sentence, when the answer is what
	// the person can mend; else the page that says why.
	failed := func(rec *inquiry.Record, err error) {
		if inquiry.ErrorCode(err) == inquiry.CodeInvalidAnswer && rec != nil {
			_, l, _ := h.svc.OpenLink(ctx, token)
			h.question(w, token, rec, l, inquiry.ErrorMessage(err), typed, edit, http.StatusUnprocessableEntity)
			return
		}
		h.refuse(w, r, token, rec, nil, err)
	}
	switch f.Get("step") {
	case "confirm":
		rec, a, err := h.svc.CheckLinkReply(ctx, token, reply)
		if err != nil {
			failed(rec, err)
			return
		}
		h.confirm(w, token, rec, values, typed, edit, a)
	case "back":
		// Take back: the question again, with what the person typed and edited in its boxes,
		// carried in the form (never the URL, which a browser keeps and a proxy logs).
		rec, l, err := h.svc.OpenLink(ctx, token)
		if err != nil {
			h.refuse(w, r, token, rec, l, err)
			return
		}
		h.question(w, token, rec, l, "", typed, edit, http.StatusOK)
	case "send":
		again := h.votedBefore(ctx, token)
		rec, err := h.svc.AnswerByLink(ctx, token, reply)
		if err != nil {
			failed(rec, err)
			return
		}
		h.sent(w, rec, again)
	default:
		h.refuse(w, r, token, nil, nil, inquiry.Errorf(inquiry.CodeBadRequest, "the form names no step: open the link again and answer on its page"))
	}
}

// sameOrigin reports whether a POST came from a page of this server. Sec-Fetch-Site, which
// every current browser sends, says so; without it the Origin header must name this host. Under
// Referrer-Policy no-referrer a browser sends "Origin: null" even from the page itself, so a
// null or missing origin (an old browser, curl) is judged by its form token alone.
func sameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" {
		return site == "same-origin" || site == "none"
	}
	o := r.Header.Get("Origin")
	if o == "" || o == "null" {
		return true
	}
	u, err := url.Parse(o)
	return err == nil && u.Host == r.Host
}

// base fills what every page shows of rec.
func (h *Handler) base(v *view, token string, rec *inquiry.Record) {
	v.CSS = template.CSS(pageCSS)
	v.Action = inquiry.LinkPath + token
	v.Rec = rec
	if rec == nil {
		return
	}
	v.Form = h.svc.FormToken(token)
	v.Title = inquiry.OneLine(rec.Question, 70)
	if rec.ExpiresAt != nil {
		v.Deadline = rec.ExpiresAt.UTC().Format("Mon 2 Jan 2006, 15:04 MST")
		v.DeadlineISO = rec.ExpiresAt.UTC().Format(time.RFC3339)
	}
	if rec.HasDefault() {
		v.Assumed = inquiry.RenderValue(&rec.Inquiry, rec.Default)
		if rec.Kind == inquiry.KindText {
			v.Assumed = rec.Default.First()
		}
	} else {
		v.Assumed = "nothing: the question is declined"
	}
	v.Asked = inquiry.ApprovalAsked(&rec.Inquiry)
	if len(rec.Votes) > 0 {
		v.Tally = inquiry.Tallied(rec)
	}
}

// question renders the question with its answers; problem, when set, is why the last try was
// refused, typed what the person had written and edit their edit of the proposal ("": none).
func (h *Handler) question(w http.ResponseWriter, token string, rec *inquiry.Record, l *inquiry.Link, problem, typed, edit string, status int) {
	v := view{View: "question", State: "pending", Problem: problem, Typed: typed, MaxChars: inquiry.DefaultAnswerChars}
	h.base(&v, token, rec)
	v.Proposal = showProposal(rec.Proposal)
	v.Edit = edit
	if v.Edit == "" && rec.Proposal != nil {
		v.Edit = rec.Proposal.Content
	}
	if l != nil {
		v.Who = l.Who()
	}
	v.Offered = inquiry.Offered(&rec.Inquiry)
	v.Multiple = rec.Multiple
	v.Words = rec.Kind == inquiry.KindText || rec.AllowText
	switch rec.Reason {
	case inquiry.ReasonAlways:
		v.Reason = "Your reason (needed)"
	case inquiry.ReasonOnNo:
		v.Reason = "Your reason (needed for a no)"
	}
	h.render(w, status, &v)
}

// confirm renders the confirmation step: what would be sent, Send or Take back.
func (h *Handler) confirm(w http.ResponseWriter, token string, rec *inquiry.Record, values []string, typed, edit string, a inquiry.Answer) {
	v := view{View: "confirm", State: "confirm", Values: values, Typed: typed, Edit: edit}
	if edit != "" {
		v.Proposal = showProposal(&inquiry.Proposal{Format: rec.Proposal.Format, Content: edit, Title: rec.Proposal.Title})
		v.Proposal.From = "Your edited version, which Send approves (" + v.Proposal.Format + "):"
	}
	h.base(&v, token, rec)
	v.Title = "Send this answer?"
	v.Decision = inquiry.RenderAnswer(&rec.Inquiry, &inquiry.Answer{Value: a.Value, Text: a.Text, Declined: a.Declined})
	h.render(w, http.StatusOK, &v)
}

// votedBefore reports whether the holder of link token has a vote on its inquiry already — in
// Slack, say, for a link of their own: a vote through the link then replaces it, and the page
// says so.
func (h *Handler) votedBefore(ctx context.Context, token string) bool {
	rec, l, err := h.svc.OpenLink(ctx, token)
	if err != nil || rec.Quorum() <= 1 {
		return false
	}
	who := l.Who()
	return slices.ContainsFunc(rec.Votes, func(v inquiry.Vote) bool { return v.By == who })
}

// sent renders what answering did: answered, or a vote counted towards a quorum; again says
// the person had voted before, so this vote replaced theirs.
func (h *Handler) sent(w http.ResponseWriter, rec *inquiry.Record, again bool) {
	v := view{View: "outcome", State: "answered", Heading: "Sent", Rec: rec}
	h.base(&v, "", rec)
	v.Title = "Sent"
	switch {
	case rec.Status == inquiry.StatusPending && again:
		v.What = "You had voted already, so this vote replaces yours (one person, one vote); the question waits for more people: " + inquiry.ApprovalAsked(&rec.Inquiry) + "."
	case rec.Status == inquiry.StatusPending:
		v.What = "Your vote is counted; the question waits for more people: " + inquiry.ApprovalAsked(&rec.Inquiry) + "."
	default:
		v.What = outcome(rec)
		v.Proposal, v.Approved = settled(rec)
	}
	h.render(w, http.StatusOK, &v)
}

// outcome says what happened to a resolved inquiry and who decided, in the domain's words.
func outcome(rec *inquiry.Record) string {
	if said, ok := inquiry.DecidedBy(&rec.Inquiry, rec.Answer); ok {
		return "Answered: " + inquiry.RenderAnswer(&rec.Inquiry, &inquiry.Answer{Value: rec.Answer.Value, Text: rec.Answer.Text}) + ", " + said + "."
	}
	switch rec.Status {
	case inquiry.StatusAnswered:
		return "Answered: " + inquiry.RenderAnswer(&rec.Inquiry, rec.Answer) + "."
	case inquiry.StatusExpired:
		return "Nobody answered in time. " + inquiry.RenderAnswer(&rec.Inquiry, rec.Answer) + "."
	case inquiry.StatusCancelled:
		return "Whoever asked withdrew the question; nothing needs answering."
	case inquiry.StatusFailed:
		if rec.Failure != nil {
			return "The question failed: " + rec.Failure.Message
		}
		return "The question failed."
	}
	return ""
}

// headings name each refusal on its page.
var headings = map[inquiry.Code]string{
	inquiry.CodeNotFound:        "This link does not work",
	inquiry.CodeGone:            "This link no longer works",
	inquiry.CodeForbidden:       "Not sent",
	inquiry.CodeRateLimited:     "Too many tries",
	inquiry.CodeAlreadyResolved: "Already decided",
}

// refuse renders err's page. A link whose inquiry was already decided shows what was decided
// and who decided it: with a GET (the person only looks) as 200, with a POST (an answer too
// late) as 409.
func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, token string, rec *inquiry.Record, _ *inquiry.Link, err error) {
	code := inquiry.ErrorCode(err)
	status := httpstatus.Of(code) // the API's table: one status for one code
	msg := inquiry.ErrorMessage(err)
	if status == http.StatusInternalServerError {
		h.log.ErrorContext(r.Context(), "answer page failed", "err", err)
		msg = "Something went wrong on the server; try again in a minute."
	}
	if code == inquiry.CodeStorageUnavailable {
		w.Header().Set("Retry-After", "5")
	}
	v := view{View: "outcome", State: "refused", Heading: headings[code], What: msg}
	if v.Heading == "" {
		v.Heading = "Not sent"
	}
	if code == inquiry.CodeAlreadyResolved && rec != nil {
		h.base(&v, token, rec)
		v.State = string(rec.Status)
		v.Heading = map[inquiry.Status]string{inquiry.StatusAnswered: "Already answered", inquiry.StatusExpired: "Expired",
			inquiry.StatusCancelled: "Cancelled", inquiry.StatusFailed: "Failed"}[rec.Status]
		v.What = outcome(rec)
		v.Proposal, v.Approved = settled(rec)
		if r.Method == http.MethodGet {
			status = http.StatusOK
		}
	} else {
		v.CSS = template.CSS(pageCSS)
		v.Rec = nil // a refused link shows nothing of any question
	}
	if v.Title == "" {
		v.Title = v.Heading
	}
	h.render(w, status, &v)
}

// render writes the page; a template that fails is a bug, logged without the token.
func (h *Handler) render(w http.ResponseWriter, status int, v *view) {
	var b strings.Builder
	if err := page.ExecuteTemplate(&b, "layout", v); err != nil {
		h.log.Error("render the answer page", "err", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(b.String()))
}
