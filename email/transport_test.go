package email_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/email"
	"github.com/inquiry-bot/bot/email/emailtest"
	"github.com/inquiry-bot/bot/inquiry"
)

// links mints a link that names the inquiry and the recipient, as the service's would.
type links struct{ minted []string }

func (l *links) RecipientLink(_ context.Context, rec *inquiry.Record, recipient string) (string, error) {
	l.minted = append(l.minted, recipient)
	return "https://bot.example/a/" + rec.Key + "." + strings.ReplaceAll(recipient, "@", "-at-"), nil
}

func (l *links) PageLink(_ context.Context, rec *inquiry.Record, recipient string) (string, error) {
	return "https://bot.example/a/" + rec.Key + ".page." + strings.ReplaceAll(recipient, "@", "-at-"), nil
}

var quiet = slog.New(slog.DiscardHandler)

var now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func record(to ...string) *inquiry.Record {
	exp := now.Add(2 * time.Hour)
	return &inquiry.Record{
		Key: "k1",
		Inquiry: inquiry.Inquiry{ID: "merge-42", Kind: inquiry.KindConfirm, Question: "Merge <script>alert(1)</script> #42?",
			Context: "CI is green.\nTwo reviews.", Default: inquiry.One("no"), ExpiresAt: &exp},
		Config: inquiry.Config{Policy: inquiry.PolicyAsk, Transport: inquiry.TransportEmail},
		Status: inquiry.StatusPending, Email: &inquiry.EmailTarget{To: to}, CreatedAt: now,
	}
}

// start runs a mail server for the test.
func start(t *testing.T, implicit bool) *emailtest.Server {
	t.Helper()
	ms, err := emailtest.Start(implicit)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ms.Close() })
	return ms
}

// config is the transport's config for ms, with the password given, trusting its certificate.
func config(t *testing.T, ms *emailtest.Server, password string) email.Config {
	t.Helper()
	cfg, err := email.ParseConfig(ms.URL(emailtest.User, password), "Inquiry bot <bot@example.com>")
	require.NoError(t, err)
	cfg.TLS = ms.ClientTLS()
	return cfg
}

// mailed posts rec through a new transport and returns the one message its server received.
func mailed(t *testing.T, rec *inquiry.Record) emailtest.Message {
	t.Helper()
	ms := start(t, false)
	tr := email.New(config(t, ms, emailtest.Password), &links{}, quiet, func() time.Time { return now })
	_, err := tr.Post(context.Background(), rec)
	require.NoError(t, err)
	got := ms.Messages()
	require.Len(t, got, 1)
	return got[0]
}

func TestPostMailsEachRecipientTheirOwnLink(t *testing.T) {
	for _, implicit := range []bool{false, true} {
		name := map[bool]string{false: "STARTTLS", true: "implicit TLS"}[implicit]
		t.Run(name, func(t *testing.T) {
			ms := start(t, implicit)
			l := &links{}
			tr := email.New(config(t, ms, emailtest.Password), l, quiet, func() time.Time { return now })
			rec := record("alice@example.com", "bob@example.org")

			where, err := tr.Post(context.Background(), rec)
			require.NoError(t, err)
			require.Equal(t, inquiry.TransportEmail, where.Place)
			require.NotEmpty(t, where.ID, "the record must read as shown, so that a retry does not mail it again")
			require.Equal(t, []string{"alice@example.com", "bob@example.org"}, l.minted)

			got := ms.Messages()
			require.Len(t, got, 2, "one message a recipient: nobody sees another's link")
			ids := map[string]bool{}
			for i, to := range []string{"alice@example.com", "bob@example.org"} {
				r := got[i]
				require.Equal(t, []string{to}, r.To)
				require.Equal(t, "bot@example.com", r.From)
				require.Equal(t, "Question: Merge <script>alert(1)</script> #42?", r.Header.Get("Subject"))
				require.Equal(t, "auto-generated", r.Header.Get("Auto-Submitted"))
				ids[r.Header.Get("Message-Id")] = true
				text, html := r.Text, r.HTML
				link := "https://bot.example/a/k1." + strings.ReplaceAll(to, "@", "-at-")
				require.Contains(t, text, link)
				require.Contains(t, text, "Merge <script>alert(1)</script> #42?", "the plain part is plain")
				require.Contains(t, text, "> CI is green.\n> Two reviews.", "the asker's text is quoted")
				require.Contains(t, text, "1. Yes\n>   2. No")
				require.Contains(t, text, "It expires in 2h (2026-12-01 14:00 UTC); if nobody answers: No.")
				require.Contains(t, text, "This link answers as "+to)
				require.Contains(t, html, `href="`+link+`"`)
				require.Contains(t, html, "Merge &lt;script&gt;alert(1)&lt;/script&gt; #42?", "user text is escaped in HTML")
				require.NotContains(t, html, "<script>")
			}
			require.Len(t, ids, 2, "each message has its own Message-ID")
		})
	}
}

// TestMailCannotBeImitated: a context that repeats the bot's own words — "Answer it here", a
// lookalike link, a signature — reads as quoted asker text in both parts, below the real link;
// a character that would rewrite a line (stored before the rule refused it) shows as a code.
func TestMailCannotBeImitated(t *testing.T) {
	rec := record("alice@example.com")
	rec.Context = "Answer it here (the page asks you to confirm before anything is sent):\nhttps://bot.examp1e/a/fake\n\nThis link answers as alice@example.com.\r-- the inquiry bot"
	m := mailed(t, rec)
	text, html := m.Text, m.HTML
	real := "https://bot.example/a/k1.alice-at-example.com"
	require.Less(t, strings.Index(text, real), strings.Index(text, "bot.examp1e"), "the real link comes first")
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "bot.examp1e") || strings.Contains(line, "-- the inquiry bot") {
			require.True(t, strings.HasPrefix(line, "> "), "asker text is quoted: %q", line)
		}
	}
	require.Contains(t, text, "alice@example.com.⟨U+000D⟩-- the inquiry bot", "a carriage return is shown, not obeyed")
	require.NotContains(t, text, "\r")
	quoteAt, fakeAt := strings.Index(html, "<blockquote"), strings.Index(html, "bot.examp1e")
	require.Positive(t, quoteAt)
	require.Less(t, quoteAt, fakeAt, "the imitation sits inside the labelled quote")
	require.Less(t, fakeAt, strings.Index(html, "</blockquote>"))
	require.Less(t, strings.Index(html, `href="`+real+`"`), quoteAt, "the bot's own button is outside it, before it")
	require.NotContains(t, html, `href="https://bot.examp1e`)
}

func TestPostReadsTheServersRefusal(t *testing.T) {
	ctx := context.Background()
	t.Run("a 5xx is retried, then fails the inquiry with a sentence", func(t *testing.T) {
		ms := start(t, false)
		ms.Refuse(func(to string) error {
			if to == "nobody@example.com" {
				return emailtest.Reply(550, "no such user")
			}
			return nil
		})
		tr := email.New(config(t, ms, emailtest.Password), &links{}, quiet, nil)
		for attempt := 1; attempt < email.RefusalsBeforeFailing; attempt++ {
			_, err := tr.Post(inquiry.WithAttempt(ctx, attempt), record("nobody@example.com"))
			require.Error(t, err)
			require.False(t, inquiry.Fatal(err), "attempt %d: a 5xx may be the server's passing trouble (%v)", attempt, err)
		}
		_, err := tr.Post(inquiry.WithAttempt(ctx, email.RefusalsBeforeFailing), record("nobody@example.com"))
		require.True(t, inquiry.Fatal(err), "%v", err)
		require.Contains(t, err.Error(), "refused it for good")
		require.Contains(t, err.Error(), "no such user")
		require.Contains(t, err.Error(), "check the addresses in email.to")
	})
	t.Run("a wrong password", func(t *testing.T) {
		ms := start(t, false)
		_, err := email.New(config(t, ms, "wrong"), &links{}, quiet, nil).Post(ctx, record("alice@example.com"))
		require.True(t, inquiry.Fatal(err), "%v", err)
		require.Contains(t, err.Error(), "check the user and password in SMTP_URL")
		require.NotContains(t, err.Error(), "wrong", "the password is never said")
	})
	t.Run("a certificate it does not trust", func(t *testing.T) {
		ms := start(t, false)
		cfg := config(t, ms, emailtest.Password)
		cfg.TLS = nil // the system's roots: the test's certificate is nobody's
		_, err := email.New(cfg, &links{}, quiet, nil).Post(ctx, record("alice@example.com"))
		require.True(t, inquiry.Fatal(err), "%v", err)
		require.Contains(t, err.Error(), "does not trust")
		require.Empty(t, ms.Messages(), "nothing is said before TLS")
	})
	t.Run("a server that is not there is retried", func(t *testing.T) {
		ms := start(t, false)
		cfg := config(t, ms, emailtest.Password)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		cfg.Port = ln.Addr().(*net.TCPAddr).Port
		require.NoError(t, ln.Close()) // nobody listens there now
		_, err = email.New(cfg, &links{}, quiet, nil).Post(ctx, record("alice@example.com"))
		require.Error(t, err)
		require.False(t, inquiry.Fatal(err), "%v", err)
	})
}

// TestNoHeaderInjection: a question that carries line breaks and would-be headers reaches the
// subject on one line; the message goes to its one recipient and no header of the question's
// making is added. An address with a line break never passes Validate, so never reaches Post.
func TestNoHeaderInjection(t *testing.T) {
	rec := record("alice@example.com")
	rec.Question = "Deploy?\r\nBcc: mallory@evil.example\r\nX-Injected: yes\n\nbody"
	m := mailed(t, rec)
	require.Equal(t, []string{"alice@example.com"}, m.To)
	require.Empty(t, m.Header.Get("Bcc"))
	require.Empty(t, m.Header.Get("X-Injected"))
	require.Equal(t, "Question: Deploy? Bcc: mallory@evil.example X-Injected: yes body", m.Header.Get("Subject"))

	for _, addr := range []string{"alice@example.com\r\nBcc: mallory@evil.example", "alice@example.com,mallory@evil.example", `"a\r\nb"@example.com`} {
		err := inquiry.ValidateEmail(&inquiry.EmailTarget{To: []string{addr}}, inquiry.TransportEmail)
		require.Error(t, err, "%q", addr)
		require.True(t, strings.HasPrefix(inquiry.ErrorField(err), "email.to"), "%q: %v", addr, err)
	}
}

func TestUpdateMailsTheOutcomeInReplyToTheQuestion(t *testing.T) {
	ms := start(t, false)
	tr := email.New(config(t, ms, emailtest.Password), &links{}, quiet, func() time.Time { return now })
	rec := record("alice@example.com")
	_, err := tr.Post(context.Background(), rec)
	require.NoError(t, err)

	rec.Status = inquiry.StatusAnswered
	rec.Answer = &inquiry.Answer{Value: inquiry.One("yes"), AnsweredBy: "link:alice@example.com", Source: inquiry.SourcePerson, AnsweredAt: now}
	require.NoError(t, tr.Update(context.Background(), rec))
	got := ms.Messages()
	require.Len(t, got, 2)
	question, outcome := got[0].Header, got[1].Header
	require.Equal(t, question.Get("Message-Id"), outcome.Get("In-Reply-To"), "the outcome threads under the question")
	require.Equal(t, "Re: Question: Merge <script>alert(1)</script> #42?", outcome.Get("Subject"))
	text, html := got[1].Text, got[1].HTML
	require.Contains(t, text, "Outcome: Yes by link:alice@example.com")
	require.Contains(t, html, "Yes by link:alice@example.com")
	require.NotContains(t, text, "https://bot.example/a/", "a settled question's mail carries no link")

	// Nothing to say of one still pending, or of one nobody was mailed.
	rec.Status = inquiry.StatusPending
	require.NoError(t, tr.Update(context.Background(), rec))
	require.Len(t, ms.Messages(), 2)
}

// TestUpdateMailsEveryEnding: the outcome is mailed after an expiry (what was assumed), a
// cancellation and a failure alike, each saying what became of the question, with no link.
func TestUpdateMailsEveryEnding(t *testing.T) {
	assumed := inquiry.Answer{Value: inquiry.One("no"), Source: inquiry.SourceExpired, AnsweredAt: now}
	for _, c := range []struct {
		name   string
		status inquiry.Status
		answer *inquiry.Answer
		fail   *inquiry.Failure
		says   string
	}{
		{"expired", inquiry.StatusExpired, &assumed, nil, "Outcome: No (assumed: nobody answered in time)"},
		{"cancelled", inquiry.StatusCancelled, nil, nil, "Outcome: cancelled by the asker"},
		{"failed", inquiry.StatusFailed, nil, &inquiry.Failure{Code: inquiry.CodeUnavailable, Message: "the channel was archived: ask again elsewhere"}, "Outcome: failed: the channel was archived"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ms := start(t, false)
			tr := email.New(config(t, ms, emailtest.Password), &links{}, quiet, func() time.Time { return now })
			rec := record("alice@example.com")
			rec.Status, rec.Answer, rec.Failure = c.status, c.answer, c.fail
			require.NoError(t, tr.Update(context.Background(), rec))
			got := ms.Messages()
			require.Len(t, got, 1)
			require.Contains(t, got[0].Text, c.says)
			require.Contains(t, got[0].HTML, c.says[len("Outcome: "):])
			require.NotContains(t, got[0].Text, "/a/", "a settled question's mail carries no link")
			require.Equal(t, "Re: Question: Merge <script>alert(1)</script> #42?", got[0].Header.Get("Subject"))
		})
	}
}

func TestParseConfig(t *testing.T) {
	t.Parallel()
	c, err := email.ParseConfig("smtp://bot:p%40ss@mail.example.com", "Inquiry bot <bot@example.com>")
	require.NoError(t, err)
	require.Equal(t, email.Config{Host: "mail.example.com", Port: 587, Username: "bot", Password: "p@ss", From: `"Inquiry bot" <bot@example.com>`}, c)
	require.NotContains(t, c.String(), "p@ss")

	c, err = email.ParseConfig("smtps://mail.example.com:2465", "bot@example.com")
	require.NoError(t, err)
	require.Equal(t, email.Config{Host: "mail.example.com", Port: 2465, Implicit: true, From: "<bot@example.com>"}, c)

	for _, tc := range []struct{ url, from, says string }{
		{"http://mail.example.com", "bot@example.com", `SMTP_URL has the scheme "http"`},
		{"smtp://", "bot@example.com", "SMTP_URL names no host"},
		{"smtp://mail.example.com:0", "bot@example.com", "not one of 1..65535"},
		{"smtp://mail.example.com/x?y", "bot@example.com", "path, query or fragment"},
		{"smtp://u:hunter2@mail.example.com", "", "EMAIL_FROM is not set"},
		{"smtp://mail.example.com", "not an address", "EMAIL_FROM \"not an address\" is not an address"},
	} {
		_, err := email.ParseConfig(tc.url, tc.from)
		require.ErrorContains(t, err, tc.says, tc.url)
		require.NotContains(t, err.Error(), "hunter2")
	}
}

// TestConfigNeverShowsThePassword: however the config reaches a log line or an error — slog's
// JSON or text, %v, %+v, %#v — the password is not in it.
func TestConfigNeverShowsThePassword(t *testing.T) {
	cfg, err := email.ParseConfig("smtps://bot:s3cr3t-pw@mail.example.com", "bot@example.com")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	slog.New(slog.NewJSONHandler(&out, nil)).Info("mail", "cfg", cfg, "ptr", &cfg)
	slog.New(slog.NewTextHandler(&out, nil)).Info("mail", "cfg", cfg, "ptr", &cfg)
	fmt.Fprintf(&out, "%v %+v %#v %s %v", cfg, cfg, cfg, &cfg, &cfg)
	if strings.Contains(out.String(), "s3cr3t-pw") {
		t.Fatalf("the password shows:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "mail.example.com:465") {
		t.Fatalf("the config says nothing useful:\n%s", out.String())
	}
}

// startUTF8 runs a STARTTLS mail server that offers SMTPUTF8 or not.
func startUTF8(t *testing.T, smtputf8 bool) *emailtest.Server {
	t.Helper()
	ms, err := emailtest.StartWith(emailtest.Options{SMTPUTF8: smtputf8})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ms.Close() })
	return ms
}

// requireASCII fails unless every byte of b is 7-bit.
func requireASCII(t *testing.T, b []byte, msgAndArgs ...any) {
	t.Helper()
	for i, c := range b {
		if c >= 0x80 {
			require.Failf(t, "an 8-bit byte", "byte %d is %#x in %q", i, c, b[max(0, i-20):min(len(b), i+20)])
		}
	}
}

// TestInternationalAddresses: a domain in Unicode goes out in its ASCII (IDNA) form, in RCPT TO
// and in the To header, so that a server without SMTPUTF8 gets 7-bit bytes only; an address
// whose local part is not ASCII needs SMTPUTF8: offered, it is used (MAIL FROM … SMTPUTF8);
// not offered, the delivery fails for good at once with a sentence, and nobody is mailed a
// question the failed inquiry could no longer take an answer to.
func TestInternationalAddresses(t *testing.T) {
	ctx := context.Background()
	for _, addr := range []string{"alice@ü.de", "ä@ü.de", "ä@example.com"} {
		require.NoError(t, inquiry.ValidateEmail(&inquiry.EmailTarget{To: []string{addr}}, inquiry.TransportEmail), "%s is taken at create", addr)
	}

	t.Run("a Unicode domain without SMTPUTF8", func(t *testing.T) {
		ms := startUTF8(t, false)
		l := &links{}
		_, err := email.New(config(t, ms, emailtest.Password), l, quiet, func() time.Time { return now }).Post(ctx, record("alice@ü.de", "bob@Bücher.example"))
		require.NoError(t, err)
		require.Equal(t, []string{"alice@ü.de", "bob@Bücher.example"}, l.minted, "the link names the address as given")
		got := ms.Messages()
		require.Len(t, got, 2)
		for i, want := range []string{"alice@xn--tda.de", "bob@xn--bcher-kva.example"} {
			require.Equal(t, []string{want}, got[i].To)
			require.False(t, got[i].UTF8)
			require.Contains(t, got[i].Header.Get("To"), want)
			requireASCII(t, got[i].Raw)
			requireASCII(t, []byte(got[i].From+strings.Join(got[i].To, "")))
		}
	})

	t.Run("a Unicode local part without SMTPUTF8", func(t *testing.T) {
		ms := startUTF8(t, false)
		tr := email.New(config(t, ms, emailtest.Password), &links{}, quiet, func() time.Time { return now })
		_, err := tr.Post(inquiry.WithAttempt(ctx, 1), record("bob@example.com", "ä@ü.de"))
		require.Error(t, err)
		require.True(t, inquiry.Fatal(err), "no retry changes what the server offers: %v", err)
		require.Contains(t, err.Error(), `the mail server at 127.0.0.1:`)
		require.Contains(t, err.Error(), `does not accept internationalized addresses (SMTPUTF8), and the address "ä@ü.de" in email.to needs it: use an ASCII address for this recipient, or a server that offers SMTPUTF8`)
		require.Empty(t, ms.Messages(), "nobody is mailed a question that fails")

		// The outcome of an inquiry is mailed the same way.
		rec := record("bob@example.com", "ä@ü.de")
		rec.Status = inquiry.StatusCancelled
		err = tr.Update(ctx, rec)
		require.True(t, inquiry.Fatal(err), "%v", err)
		require.Empty(t, ms.Messages())
	})

	t.Run("EMAIL_FROM in Unicode", func(t *testing.T) {
		ms := startUTF8(t, false)
		cfg := config(t, ms, emailtest.Password)
		cfg.From = "Bücher bot <bot@bücher.example>"
		_, err := email.New(cfg, &links{}, quiet, func() time.Time { return now }).Post(ctx, record("alice@example.com"))
		require.NoError(t, err)
		got := ms.Messages()
		require.Len(t, got, 1)
		require.Equal(t, "bot@xn--bcher-kva.example", got[0].From)
		requireASCII(t, got[0].Raw)

		cfg.From = "bötli@example.com"
		_, err = email.New(cfg, &links{}, quiet, func() time.Time { return now }).Post(ctx, record("alice@example.com"))
		require.True(t, inquiry.Fatal(err), "%v", err)
		require.Contains(t, err.Error(), `and EMAIL_FROM "bötli@example.com" needs it: set EMAIL_FROM to an ASCII address`)
		require.Len(t, ms.Messages(), 1)
	})

	t.Run("with SMTPUTF8", func(t *testing.T) {
		ms := startUTF8(t, true)
		_, err := email.New(config(t, ms, emailtest.Password), &links{}, quiet, func() time.Time { return now }).Post(ctx, record("ä@ü.de", "bob@example.com"))
		require.NoError(t, err)
		got := ms.Messages()
		require.Len(t, got, 2)
		require.Equal(t, []string{"ä@xn--tda.de"}, got[0].To)
		require.True(t, got[0].UTF8, "MAIL FROM … SMTPUTF8")
		require.Contains(t, got[0].Header.Get("To"), "ä@xn--tda.de")
		require.Equal(t, []string{"bob@example.com"}, got[1].To)
	})
}
