package email

import (
	"bytes"
	"embed"
	htmltemplate "html/template"
	"strings"
	texttemplate "text/template"
	"time"

	"github.com/inquiry-bot/bot/inquiry"
)

//go:embed templates
var templates embed.FS

// The templates: text/template for the plain part, html/template (which escapes every piece of
// user text it is handed) for the HTML part. Both read the same view.
var (
	textTmpl = texttemplate.Must(texttemplate.New("").Funcs(texttemplate.FuncMap{"inc": inc, "quote": quote}).ParseFS(templates, "templates/*.txt"))
	htmlTmpl = htmltemplate.Must(htmltemplate.New("").ParseFS(templates, "templates/*.html"))
)

// parts is one rendered message.
type parts struct{ subject, text, html string }

// view is what a template shows. Every string of the asker's is as inquiry.Printed shows it (a
// character that would rewrite a line, or shows as nothing, made visible); html/template escapes
// it for the HTML part, and the plain part is plain. The templates put the asker's text in a
// labelled, quoted block and the bot's own words and link outside it, so that a context which
// imitates them ("Answer it here: …") reads as quoted.
type view struct {
	Question, Context string
	Options           []string // the offered answers' labels; none for a Text
	Kind              string   // "choice", "confirm" or "text"
	Multiple          bool
	Asked             string // what a team is asked beyond one answer (ApprovalAsked), "" when nothing
	Deadline          string // "expires in 2h (Dec 1, 15:04 UTC)", "" without an expiry
	Assumed           string // what is assumed when nobody answers
	Link              string
	Recipient         string
	Outcome           string // what became of it (outcome messages)
	Proposal          *shownProposal
	// Approved is the edited version a person approved (outcome messages), nil when the answer
	// approved no edit; Link then opens the page that shows it whole, set only when it is cut.
	Approved *shownProposal
}

// question renders the question mailed to one recipient, with their link.
func question(rec *inquiry.Record, recipient, link string, now time.Time) parts {
	v := base(rec, now)
	v.Link, v.Recipient = link, recipient
	v.Proposal = showProposal(rec.Proposal)
	return render("question", "Question: "+inquiry.OneLine(rec.Question, 78), v)
}

// outcome renders what became of the question; link opens the page that shows an approved
// edit whole, given when the message shortens it ("" otherwise: the message carries no link).
func outcome(rec *inquiry.Record, link string) parts {
	v := base(rec, time.Time{})
	v.Deadline, v.Assumed = "", ""
	v.Outcome = inquiry.Outcome(rec)
	v.Approved, v.Link = approved(rec), link
	return render("outcome", "Re: Question: "+inquiry.OneLine(rec.Question, 78), v)
}

// base is what every message of rec shows.
func base(rec *inquiry.Record, now time.Time) view {
	in := &rec.Inquiry
	v := view{Question: inquiry.Printed(in.Question), Context: inquiry.Printed(in.Context), Kind: string(in.Kind),
		Multiple: in.Multiple, Asked: inquiry.Printed(inquiry.ApprovalAsked(in)), Assumed: inquiry.Printed(inquiry.Assumed(in))}
	for _, o := range inquiry.Offered(in) {
		v.Options = append(v.Options, inquiry.Printed(o.Label))
	}
	if in.ExpiresAt != nil && !now.IsZero() {
		v.Deadline = inquiry.Deadline(*in.ExpiresAt, now)
	}
	return v
}

// render runs the named pair of templates.
func render(name, subject string, v view) parts {
	var text, html bytes.Buffer
	// The templates are the binary's own and the view holds only strings: a failure here is a
	// template bug, which the tests of every message catch.
	if err := textTmpl.ExecuteTemplate(&text, name+".txt", v); err != nil {
		panic(err)
	}
	if err := htmlTmpl.ExecuteTemplate(&html, name+".html", v); err != nil {
		panic(err)
	}
	return parts{subject: subject, text: strings.TrimLeft(text.String(), "\n"), html: html.String()}
}

// quote puts "> " before every line of s: the plain part's mark of the asker's text.
func quote(s string) string {
	return "> " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n> ")
}

// inc numbers a list from one.
func inc(i int) int { return i + 1 }
