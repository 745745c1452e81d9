// Package email is the email transport of the inquiry bot (the README's Answer by email): it mails
// a pending inquiry to the recipients it names in email.to, each with an answer link of their own,
// as text and HTML through a well-kept mail library (wneessen/go-mail), and mails them the outcome
// once it resolves, with the version approved when a person edited the proposal (its first lines,
// and past them a link to the page that shows it whole). It only translates: what the question
// says, what was decided and by whom are the domain's readings (package inquiry), and the link is
// the service's to mint.
//
// Deliveries are the dispatcher's, like Slack posts: an error that wraps inquiry.ErrUnavailable
// (a permanent refusal by the mail server, a certificate it cannot trust, a sender it refuses)
// marks the inquiry failed with the sentence; any other error (a 4xx, a connection that broke) is
// retried with backoff. Every message has a Message-ID fixed by the inquiry and the recipient, so
// that a retry after a broken connection reads, in a mail client, as the message it repeats.
//
// Addresses in Unicode: a domain goes out in its ASCII (IDNA) form, which every server takes; a
// local part that is not ASCII needs a server that offers SMTPUTF8 (RFC 6531), and the delivery
// fails for good, before anyone is mailed, when it does not.
package email

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	netmail "net/mail"
	"net/textproto"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	mail "github.com/wneessen/go-mail"
	"golang.org/x/net/idna"

	"github.com/inquiry-bot/bot/inquiry"
)

// Links mints the links of one recipient of an inquiry: RecipientLink a URL whose answer is
// recorded as that recipient's (answered_by "link:<address>"), PageLink one that opens the page
// of an inquiry already resolved, which shows what was decided.
type Links interface {
	RecipientLink(ctx context.Context, rec *inquiry.Record, recipient string) (string, error)
	PageLink(ctx context.Context, rec *inquiry.Record, recipient string) (string, error)
}

// Transport mails inquiries. It is an inquiry.Transport, seated under inquiry.TransportEmail.
type Transport struct {
	cfg   Config
	links Links
	log   *slog.Logger
	now   func() time.Time
	// Timeout bounds one SMTP session (dial, TLS, auth and every message of a delivery).
	Timeout time.Duration

	// taken holds the Message-IDs the server accepted in an attempt of a delivery that failed
	// for another of its recipients: the retry mails only those it did not take, so that nobody
	// gets the question twice. An ID leaves once its delivery went through or failed for good.
	mu    sync.Mutex
	taken map[string]bool
}

var _ inquiry.Transport = (*Transport)(nil)

// New returns the transport; now is the clock the messages are dated and their deadlines told by.
func New(cfg Config, links Links, log *slog.Logger, now func() time.Time) *Transport {
	if log == nil {
		log = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	return &Transport{cfg: cfg, links: links, log: log, now: now, Timeout: 30 * time.Second, taken: map[string]bool{}}
}

// Post mails the question to every recipient, each with their own link, in one SMTP session.
func (t *Transport) Post(ctx context.Context, rec *inquiry.Record) (inquiry.Posted, error) {
	to := rec.Email.Recipients()
	if len(to) == 0 {
		return inquiry.Posted{}, inquiry.Unavailable("the inquiry names nobody to mail: give email.to when asking through the email transport")
	}
	now := t.now()
	msgs := make([]outgoing, 0, len(to))
	for _, addr := range to {
		link, err := t.links.RecipientLink(ctx, rec, addr)
		if err != nil {
			return inquiry.Posted{}, fmt.Errorf("mint the answer link of %s for inquiry %s: %w", addr, rec.Key, err)
		}
		m, err := t.message(addr, messageID(rec.Key, "question", addr, t.cfg.From), "", question(rec, addr, link, now), now)
		if err != nil {
			return inquiry.Posted{}, err
		}
		msgs = append(msgs, m)
	}
	if err := t.send(ctx, fmt.Sprintf("mail inquiry %s", rec.Key), msgs); err != nil {
		return inquiry.Posted{}, err
	}
	t.log.InfoContext(ctx, "question mailed", "key", rec.Key, "recipients", len(to))
	return inquiry.Posted{Place: inquiry.TransportEmail, ID: messageID(rec.Key, "question", "", t.cfg.From)}, nil
}

// Update mails every recipient what became of the question, in reply to the question's message.
func (t *Transport) Update(ctx context.Context, rec *inquiry.Record) error {
	to := rec.Email.Recipients()
	if len(to) == 0 || !rec.Status.Resolved() {
		return nil
	}
	now := t.now()
	msgs := make([]outgoing, 0, len(to))
	// An approved edit longer than a message shows links each recipient to the page that shows
	// it whole; a link of a resolved inquiry answers nothing.
	shown := approved(rec)
	cut := shown != nil && shown.Cut
	for _, addr := range to {
		link := ""
		if cut {
			var err error
			if link, err = t.links.PageLink(ctx, rec, addr); err != nil {
				return fmt.Errorf("mint the page link of %s for inquiry %s: %w", addr, rec.Key, err)
			}
		}
		m, err := t.message(addr, messageID(rec.Key, "outcome", addr, t.cfg.From),
			messageID(rec.Key, "question", addr, t.cfg.From), outcome(rec, link), now)
		if err != nil {
			return err
		}
		msgs = append(msgs, m)
	}
	if err := t.send(ctx, fmt.Sprintf("mail the outcome of inquiry %s", rec.Key), msgs); err != nil {
		return err
	}
	t.log.InfoContext(ctx, "outcome mailed", "key", rec.Key, "status", rec.Status, "recipients", len(to))
	return nil
}

// Notice has nothing to do: an answer assumed by policy asked nobody, so nobody is mailed.
func (t *Transport) Notice(context.Context, *inquiry.Record) error { return nil }

// outgoing is one message of a delivery, with what its envelope asks of the server.
type outgoing struct {
	msg *mail.Msg
	// to is the recipient as email.to names it.
	to string
	// id is the message's Message-ID.
	id string
	// utf8 says the recipient's or the sender's local part is not ASCII: only a server that
	// offers SMTPUTF8 (RFC 6531) may be given it.
	utf8, fromUTF8 bool
}

// message builds one message to addr from the rendered parts. A domain in Unicode is written in
// its ASCII form (IDNA), which every server takes; a local part in Unicode has no ASCII form.
func (t *Transport) message(addr, id, inReplyTo string, p parts, now time.Time) (outgoing, error) {
	m := mail.NewMsg()
	from, fromUTF8, err := t.sender()
	if err == nil {
		m.SetAddrHeaderFromMailAddress(mail.HeaderFrom, from)
	}
	if err != nil {
		return outgoing{}, inquiry.Unavailable("EMAIL_FROM %q is refused as a sender (%v): set EMAIL_FROM to an address such as bot@example.com", t.cfg.From, err)
	}
	rcpt, needsUTF8, err := asciiDomain(addr)
	if err != nil {
		return outgoing{}, inquiry.Unavailable("%q cannot be mailed: its domain is not a valid internationalized domain name (%v): ask again with a plain address in email.to", addr, err)
	}
	if err := m.To(rcpt); err != nil {
		return outgoing{}, inquiry.Unavailable("%q cannot be mailed (%v): ask again with a plain address in email.to", addr, err)
	}
	m.Subject(p.subject)
	m.SetMessageIDWithValue(id)
	if inReplyTo != "" {
		m.SetGenHeader(mail.HeaderInReplyTo, "<"+inReplyTo+">")
		m.SetGenHeader(mail.HeaderReferences, "<"+inReplyTo+">")
	}
	m.SetDateWithValue(now)
	// Machine-sent (RFC 3834): an out-of-office reply must not answer it back.
	m.SetGenHeader("Auto-Submitted", "auto-generated")
	m.SetGenHeader(mail.HeaderXAutoResponseSuppress, "All")
	m.SetBodyString(mail.TypeTextPlain, p.text)
	m.AddAlternativeString(mail.TypeTextHTML, p.html)
	return outgoing{msg: m, to: addr, id: id, utf8: needsUTF8, fromUTF8: fromUTF8}, nil
}

// sender is EMAIL_FROM with its domain in ASCII, and whether its local part needs SMTPUTF8.
func (t *Transport) sender() (*netmail.Address, bool, error) {
	from, err := netmail.ParseAddress(t.cfg.From)
	if err != nil {
		return nil, false, err
	}
	var needsUTF8 bool
	if from.Address, needsUTF8, err = asciiDomain(from.Address); err != nil {
		return nil, false, err
	}
	return from, needsUTF8, nil
}

// asciiDomain is addr with its domain in ASCII (IDNA's lookup form: "ü.de" is "xn--tda.de"), and
// whether its local part is not ASCII, which no conversion can help. An ASCII domain is left as
// it is: IDNA's rules are stricter than what mail servers take (an underscore, for one).
func asciiDomain(addr string) (string, bool, error) {
	at := strings.LastIndexByte(addr, '@')
	if at < 0 {
		return addr, !isASCII(addr), nil
	}
	local, domain := addr[:at], addr[at+1:]
	if !isASCII(domain) {
		d, err := idna.Lookup.ToASCII(domain)
		if err != nil {
			return "", false, err
		}
		domain = d
	}
	return local + "@" + domain, !isASCII(local), nil
}

func isASCII(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r >= utf8.RuneSelf })
}

// send delivers msgs in one session, and reads the failure as the dispatcher needs it.
func (t *Transport) send(ctx context.Context, op string, msgs []outgoing) (err error) {
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	opts := []mail.Option{mail.WithPort(t.cfg.Port), mail.WithTimeout(t.Timeout), mail.WithoutNoop()}
	if t.cfg.Implicit {
		opts = append(opts, mail.WithSSL())
	} else {
		opts = append(opts, mail.WithTLSPolicy(mail.TLSMandatory))
	}
	tlsCfg := &tls.Config{ServerName: t.cfg.Host, MinVersion: tls.VersionTLS12}
	if t.cfg.TLS != nil {
		tlsCfg = t.cfg.TLS.Clone()
	}
	opts = append(opts, mail.WithTLSConfig(tlsCfg))
	if t.cfg.Username != "" {
		// The strongest mechanism the server offers; PLAIN and LOGIN only inside TLS, which the
		// policy above makes sure of.
		opts = append(opts, mail.WithSMTPAuth(mail.SMTPAuthAutoDiscover), mail.WithUsername(t.cfg.Username), mail.WithPassword(t.cfg.Password))
	}
	c, err := mail.NewClient(t.cfg.Host, opts...)
	if err != nil {
		return inquiry.Unavailable("%s: the mail settings are unusable (%v): check SMTP_URL", op, err)
	}
	sc, err := c.DialToSMTPClientWithContext(ctx)
	if err != nil {
		return classify(op, t.cfg, fmt.Errorf("dial failed: %w", err), inquiry.AttemptOf(ctx))
	}
	defer func() {
		if closeErr := c.CloseWithSMTPClient(sc); closeErr != nil && err == nil {
			err = classify(op, t.cfg, fmt.Errorf("failed to close connection: %w", closeErr), inquiry.AttemptOf(ctx))
		}
	}()
	// go-mail adds SMTPUTF8 to MAIL FROM whenever the server offers it. Without it, an address
	// whose local part is not ASCII cannot be said, and saying it raw is what RFC 6531 forbids;
	// no retry makes the server offer it. The whole delivery fails before anyone is mailed: the
	// inquiry fails with it, and a question that can no longer be answered helps nobody.
	if ok, _ := sc.Extension("SMTPUTF8"); !ok {
		for _, m := range msgs {
			switch {
			case m.fromUTF8:
				return inquiry.Unavailable("%s: the mail server at %s does not accept internationalized addresses (SMTPUTF8), and EMAIL_FROM %q needs it: set EMAIL_FROM to an ASCII address, or use a server that offers SMTPUTF8", op, t.cfg.Addr(), t.cfg.From)
			case m.utf8:
				return inquiry.Unavailable("%s: the mail server at %s does not accept internationalized addresses (SMTPUTF8), and the address %q in email.to needs it: use an ASCII address for this recipient, or a server that offers SMTPUTF8", op, t.cfg.Addr(), m.to)
			}
		}
	}
	var batch []*mail.Msg
	t.mu.Lock()
	for _, m := range msgs {
		if !t.taken[m.id] {
			batch = append(batch, m.msg)
		}
	}
	t.mu.Unlock()
	sendErr := c.SendWithSMTPClient(sc, batch...)
	if sendErr != nil {
		err = classify(op, t.cfg, fmt.Errorf("send failed: %w", sendErr), inquiry.AttemptOf(ctx))
	}
	t.remember(msgs, err)
	return err
}

// maxTaken bounds what remember keeps: past it (thousands of deliveries retried at once, or
// abandoned ones left behind), a retry mails its recipients again rather than the memory grow.
const maxTaken = 10000

// remember notes which messages of msgs the server took when err (the attempt's) will be retried
// and some message was refused (go-mail marks each refused message); else the delivery is over
// and its messages are forgotten.
func (t *Transport) remember(msgs []outgoing, err error) {
	refused := false
	for _, m := range msgs {
		refused = refused || m.msg.HasSendError()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, m := range msgs {
		switch {
		case err == nil || inquiry.Fatal(err):
			delete(t.taken, m.id)
		case refused && !m.msg.HasSendError() && len(t.taken) < maxTaken:
			t.taken[m.id] = true
		}
	}
}

// RefusalsBeforeFailing is how many attempts of a delivery may meet a 5xx reply before the
// refusal is taken as permanent. RFC 5321 makes a 5xx permanent, but servers answer 5xx for a
// passing trouble of their own too (a full queue, a broken backend); a retry after a second and
// two more costs little, and an address that does not exist still fails the inquiry in seconds.
const RefusalsBeforeFailing = 3

// classify reads a failed session at attempt of its delivery: a 4xx, a connection refused or
// cut, a timeout, and a 5xx before RefusalsBeforeFailing attempts met it, are retried; a 5xx at
// the last of them, a refused login and a certificate that is not trusted are permanent:
// inquiry.ErrUnavailable with a sentence that says how to fix it.
func classify(op string, cfg Config, err error, attempt int) error {
	var se *mail.SendError
	if errors.As(err, &se) {
		if se.IsTemp() {
			return fmt.Errorf("%s: the mail server asked to try later: %w", op, err)
		}
		if code := se.ErrorCode(); code >= 500 && code < 600 && attempt < RefusalsBeforeFailing {
			return fmt.Errorf("%s: the mail server refused it (attempt %d of %d before the refusal is taken as final): %w", op, attempt, RefusalsBeforeFailing, err)
		}
		if code := se.ErrorCode(); code >= 500 && code < 600 {
			return inquiry.Unavailable("%s: the mail server refused it for good (%s): check the addresses in email.to and that %s may send as %s", op, oneLine(err), cfg.Addr(), cfg.From)
		}
	}
	var pe *textproto.Error
	if errors.As(err, &pe) {
		switch {
		case pe.Code == 535 || pe.Code == 534 || pe.Code == 530:
			return inquiry.Unavailable("%s: the mail server %s refused the login (%d %s): check the user and password in SMTP_URL", op, cfg.Addr(), pe.Code, oneLine(errors.New(pe.Msg)))
		case pe.Code >= 500:
			return inquiry.Unavailable("%s: the mail server %s refused it for good (%d %s): check SMTP_URL and EMAIL_FROM", op, cfg.Addr(), pe.Code, oneLine(errors.New(pe.Msg)))
		}
	}
	var unknown x509.UnknownAuthorityError
	var invalid x509.CertificateInvalidError
	var host x509.HostnameError
	var verify *tls.CertificateVerificationError
	if errors.As(err, &unknown) || errors.As(err, &invalid) || errors.As(err, &host) || errors.As(err, &verify) {
		return inquiry.Unavailable("%s: the mail server %s shows a certificate this server does not trust (%s): fix the server's certificate, or name the host its certificate is for in SMTP_URL", op, cfg.Addr(), oneLine(err))
	}
	if strings.Contains(err.Error(), "STARTTLS") {
		// go-mail says so in words only: the server offers no STARTTLS and the policy requires it.
		return inquiry.Unavailable("%s: the mail server %s does not offer STARTTLS, which smtp:// requires: use a server that does, or smtps:// for implicit TLS", op, cfg.Addr())
	}
	return fmt.Errorf("%s: %w", op, err)
}

// oneLine is an error's text on one line, bounded for a sentence.
func oneLine(err error) string { return inquiry.OneLine(err.Error(), 200) }

// messageID is the Message-ID of one message of an inquiry: fixed by the inquiry, what the
// message is, and the recipient (none: the question as the record keeps it), in the sender's
// domain. A hash stands for the recipient, who has no business in another's headers.
func messageID(key, what, recipient, from string) string {
	domain := "inquiry-bot.invalid"
	if at := strings.LastIndexByte(from, '@'); at >= 0 {
		domain = strings.TrimRight(from[at+1:], ">")
	}
	id := key + "." + what
	if recipient != "" {
		sum := sha256.Sum256([]byte(strings.ToLower(recipient)))
		id += "." + hex.EncodeToString(sum[:6])
	}
	return id + "@" + domain
}
