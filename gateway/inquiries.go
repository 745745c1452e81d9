package gateway

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/inquiry-bot/bot/inquiry"
)

// AskBody is the body of POST /v1/inquiries (and, with run_id taken from the path, of
// POST /v1/runs/{id}/ask): the domain's own ask request, decoded as it is.
type AskBody = inquiry.AskRequest

// SlackBody is where in Slack to ask, and who may answer.
type SlackBody = inquiry.SlackTarget

// AnswerBody is the body of POST /v1/inquiries/{key}/answer.
type AnswerBody struct {
	Value    inquiry.Value `json:"value"`
	Text     string        `json:"text"`
	Declined bool          `json:"declined"`
	// Content is an edited version of the inquiry's editable proposal, approved with Value.
	Content string `json:"content"`
}

// InquiryList is a page of inquiries, newest first.
type InquiryList struct {
	Inquiries  []*inquiry.Record `json:"inquiries"`
	NextCursor string            `json:"next_cursor"`
}

// serveAsk is the ask both ask endpoints share: it decodes the body, runs check on it (nil:
// none), holds a long-poll slot for the ask's wait, and checks what only the HTTP edge can, the
// callback URL, whose guard needs the network, before anything is stored. Every other rule (the
// expiry given two ways, the wait, the Slack fields, inquiry.Validate) is the service's; the
// namespace and the asker are the caller's. Then do asks and answers; its error is the refusal.
func (s *Server) serveAsk(c *gin.Context, check func(*AskBody) error, do func(ctx context.Context, req inquiry.AskRequest) error) {
	var b AskBody
	if !s.bind(c, &b, false) {
		return
	}
	if check != nil {
		if err := check(&b); err != nil {
			s.abort(c, err)
			return
		}
	}
	release, ok := s.longPoll(c, waits(b.Wait))
	if !ok {
		return
	}
	defer release()
	ctx := c.Request.Context()
	if b.CallbackURL != "" {
		if err := s.guard.Check(ctx, "callback_url", b.CallbackURL); err != nil {
			s.abort(c, err)
			return
		}
	}
	if err := do(ctx, b); err != nil {
		s.abort(c, err)
	}
}

// createInquiry asks. 201: a new pending inquiry. 200: the same inquiry asked again (as it
// stands, answered or not), or one resolved at once by policy default or within the wait.
func (s *Server) createInquiry(c *gin.Context) {
	s.serveAsk(c, nil, func(ctx context.Context, req inquiry.AskRequest) error {
		rec, created, err := s.svc.Ask(ctx, req)
		if err != nil {
			return err
		}
		status := http.StatusOK
		if created && rec.Status == inquiry.StatusPending {
			status = http.StatusCreated
		}
		c.Header("Location", "/v1/inquiries/"+rec.Key)
		c.JSON(status, s.present(rec))
		return nil
	})
}

// getInquiry returns an inquiry; with wait it long-polls until the inquiry leaves pending. The
// wait is the service's hub wake-up, not a poll, on the handler's own goroutine, and it ends
// when the caller goes away.
func (s *Server) getInquiry(c *gin.Context) {
	wait, err := queryWait(c)
	if err != nil {
		s.abort(c, err)
		return
	}
	key := c.Param("key")
	rec, err := s.svc.Get(c.Request.Context(), key)
	if err == nil && rec.Status == inquiry.StatusPending && wait > 0 {
		release, ok := s.longPoll(c, true)
		if !ok {
			return
		}
		defer release()
		if rec, err = s.svc.Wait(c.Request.Context(), key, wait); err != nil {
			s.abort(c, err) // the key was found: no not-found sentence of the key
			return
		}
	}
	s.writeInquiry(c, rec, err)
}

// listInquiries lists newest first, each as it stands now (expired past its expiry). An ask
// token, or an answer token bound to a namespace, sees its own namespace; other answer tokens and
// admin tokens see every namespace.
func (s *Server) listInquiries(c *gin.Context) {
	// The service scopes it to the caller and refuses a status that is none.
	f := inquiry.ListFilter{RunID: c.Query("run_id"), Cursor: c.Query("cursor"), Status: inquiry.Status(c.Query("status"))}
	limit, err := queryLimit(c)
	if err != nil {
		s.abort(c, err)
		return
	}
	f.Limit = limit
	recs, next, err := s.svc.List(c.Request.Context(), f)
	if err != nil {
		s.abort(c, err)
		return
	}
	out := InquiryList{Inquiries: make([]*inquiry.Record, len(recs)), NextCursor: next}
	for i, rec := range recs {
		out.Inquiries[i] = s.present(rec)
	}
	c.JSON(http.StatusOK, out)
}

// queryLimit is the limit of a list's query (inquiry.ParseListLimit).
func queryLimit(c *gin.Context) (int, error) { return inquiry.ParseListLimit(c.Query("limit")) }

// answerInquiry records a person's (or their tool's) answer; the token's name is who answered.
func (s *Server) answerInquiry(c *gin.Context) {
	var b AnswerBody
	if !s.bind(c, &b, false) {
		return
	}
	// The service decides whether this token may answer (its namespace, never the asker).
	rec, err := s.svc.Answer(inquiry.WithVia(c.Request.Context(), via(c)), c.Param("key"), inquiry.Reply{Value: b.Value, Text: b.Text, Declined: b.Declined, Content: b.Content}, inquiry.TokenHolder(token(c)))
	s.writeInquiry(c, rec, err)
}

// via is how an answer through the API came in: the bot CLI names itself in its User-Agent.
func via(c *gin.Context) inquiry.Via {
	if strings.HasPrefix(c.GetHeader("User-Agent"), "bot-cli/") {
		return inquiry.ViaCLI
	}
	return inquiry.ViaAPI
}

// cancelInquiry withdraws a pending inquiry of the token's own namespace (any, for admin).
func (s *Server) cancelInquiry(c *gin.Context) {
	if !s.bind(c, &struct{}{}, true) {
		return
	}
	rec, err := s.svc.Cancel(c.Request.Context(), c.Param("key"))
	s.writeInquiry(c, rec, err)
}

// extendInquiry gives a pending inquiry more time, as its extend allows: by (a Go duration), or
// the inquiry's own extend.by when the body leaves it out. The service decides whether this
// token may (the tokens that may answer it may extend it).
func (s *Server) extendInquiry(c *gin.Context) {
	var b inquiry.ExtendRequest
	if !s.bind(c, &b, true) {
		return
	}
	rec, err := s.svc.Extend(c.Request.Context(), c.Param("key"), b.By, inquiry.TokenHolder(token(c)))
	s.writeInquiry(c, rec, err)
}

// writeInquiry answers with the inquiry of the path's key, or with err, a missing key said as
// such.
func (s *Server) writeInquiry(c *gin.Context, rec *inquiry.Record, err error) {
	if err != nil {
		s.abort(c, notFound(err, c.Param("key")))
		return
	}
	c.JSON(http.StatusOK, s.present(rec))
}

// notFound gives a missing inquiry a sentence that says what to check.
func notFound(err error, key string) error {
	if inquiry.ErrorCode(err) != inquiry.CodeNotFound {
		return err
	}
	return &inquiry.Error{Code: inquiry.CodeNotFound, Message: "no inquiry has the key " + strconv.Quote(key) + ": use the key a create returned (it starts with inq_), not the inquiry's id", Err: err}
}

// present is the inquiry shape every endpoint returns: lists are lists, never null.
func present(rec *inquiry.Record) *inquiry.Record {
	if rec == nil {
		return nil
	}
	out := *rec
	if out.Options == nil {
		out.Options = []inquiry.Option{}
	}
	if out.Slack.Answerers == nil {
		out.Slack.Answerers = []string{}
	}
	return &out
}

// present is the inquiry shape a response to its asker or its answerers carries: present's,
// with the answer link of a pending inquiry (the README's "Answer in a browser").
func (s *Server) present(rec *inquiry.Record) *inquiry.Record {
	out := present(rec)
	if out != nil {
		out.Links = s.svc.AnswerLinks(out)
	}
	return out
}
