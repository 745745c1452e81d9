// Package emailtest is a real SMTP server for tests: emersion/go-smtp in the test's process, with
// STARTTLS or implicit TLS on a certificate of its own, AUTH PLAIN for one user, and replies to
// RCPT TO that a test chooses (a 4xx to be retried, a 5xx that fails an inquiry). It keeps every
// message it accepts, decoded into its plain and HTML parts. It imports no testing, so a tool
// (a benchmark, a demo) can run it too.
package emailtest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// The one login the server accepts.
const (
	User     = "bot"
	Password = "s3cret pass"
)

// Server is a running SMTP server on 127.0.0.1.
type Server struct {
	srv      *smtp.Server
	addr     string
	implicit bool
	certPEM  []byte
	pool     *x509.CertPool

	mu       sync.Mutex
	received []Message
	rcpt     func(to string) error
	notify   chan struct{}
}

// Message is one message as the server accepted it.
type Message struct {
	// From and To are the envelope (MAIL FROM, RCPT TO) as the client wrote them.
	From string
	To   []string
	// UTF8 is whether MAIL FROM carried SMTPUTF8.
	UTF8   bool
	Header mail.Header
	// Text and HTML are the decoded parts of a multipart/alternative message, with LF line ends.
	Text, HTML string
	// Raw is the message as DATA carried it.
	Raw []byte
}

// Options are what a server offers.
type Options struct {
	// Implicit is TLS from the first byte; otherwise STARTTLS.
	Implicit bool
	// SMTPUTF8 advertises RFC 6531's internationalized addresses.
	SMTPUTF8 bool
}

// Start runs a server: implicit TLS from the first byte when implicit, else STARTTLS.
func Start(implicit bool) (*Server, error) { return StartWith(Options{Implicit: implicit}) }

// StartWith runs a server offering what o says.
func StartWith(o Options) (*Server, error) {
	implicit := o.Implicit
	cert, certPEM, pool, err := selfSigned()
	if err != nil {
		return nil, err
	}
	ms := &Server{implicit: implicit, certPEM: certPEM, pool: pool, notify: make(chan struct{}, 1)}
	s := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &session{ms: ms}, nil }))
	s.EnableSMTPUTF8 = o.SMTPUTF8
	s.Domain = "mail.test"
	s.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	s.ReadTimeout, s.WriteTimeout = 10*time.Second, 10*time.Second
	s.MaxMessageBytes = 1 << 20
	s.MaxRecipients = 50
	var ln net.Listener
	if implicit {
		ln, err = tls.Listen("tcp", "127.0.0.1:0", s.TLSConfig)
	} else {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		return nil, err
	}
	ms.srv, ms.addr = s, ln.Addr().String()
	go func() { _ = s.Serve(ln) }()
	return ms, nil
}

// Close stops the server.
func (ms *Server) Close() error { return ms.srv.Close() }

// Addr is host:port.
func (ms *Server) Addr() string { return ms.addr }

// URL is the SMTP_URL that reaches the server with the login given.
func (ms *Server) URL(user, password string) string {
	scheme := "smtp"
	if ms.implicit {
		scheme = "smtps"
	}
	return (&url.URL{Scheme: scheme, User: url.UserPassword(user, password), Host: ms.addr}).String()
}

// CertPEM is the server's certificate, for a process that trusts it through SSL_CERT_FILE.
func (ms *Server) CertPEM() []byte { return ms.certPEM }

// ClientTLS is a client TLS config that trusts the server.
func (ms *Server) ClientTLS() *tls.Config {
	return &tls.Config{RootCAs: ms.pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
}

// Refuse makes RCPT TO answer what rcpt returns (nil accepts); nil accepts everyone.
func (ms *Server) Refuse(rcpt func(to string) error) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	ms.rcpt = rcpt
}

// Reply is an SMTP reply the server gives, such as Reply(451, "try again later").
func Reply(code int, msg string) error {
	return &smtp.SMTPError{Code: code, EnhancedCode: smtp.EnhancedCode{code / 100, 1, 1}, Message: msg}
}

// Messages are the messages accepted so far, oldest first.
func (ms *Server) Messages() []Message {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	return append([]Message(nil), ms.received...)
}

// Wait returns once at least n messages were accepted, or fails after within.
func (ms *Server) Wait(n int, within time.Duration) ([]Message, error) {
	deadline := time.After(within)
	for {
		if got := ms.Messages(); len(got) >= n {
			return got, nil
		}
		select {
		case <-ms.notify:
		case <-deadline:
			return ms.Messages(), fmt.Errorf("the mail server accepted %d messages in %s, want %d", len(ms.Messages()), within, n)
		}
	}
}

type session struct {
	ms     *Server
	authed bool
	from   string
	utf8   bool
	to     []string
}

var _ smtp.AuthSession = (*session)(nil)

func (s *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != User || pass != Password {
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "authentication credentials invalid"}
		}
		s.authed = true
		return nil
	}), nil
}

func (s *session) Mail(from string, opts *smtp.MailOptions) error {
	if !s.authed {
		return smtp.ErrAuthRequired
	}
	s.from, s.utf8 = from, opts != nil && opts.UTF8
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.ms.mu.Lock()
	rcpt := s.ms.rcpt
	s.ms.mu.Unlock()
	if rcpt != nil {
		if err := rcpt(to); err != nil {
			return err
		}
	}
	s.to = append(s.to, to)
	return nil
}

func (s *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	m := Message{From: s.from, To: s.to, UTF8: s.utf8, Header: msg.Header, Raw: raw}
	if m.Text, m.HTML, err = parts(msg); err != nil {
		return &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 6, 0}, Message: "unreadable message: " + err.Error()}
	}
	s.ms.mu.Lock()
	s.ms.received = append(s.ms.received, m)
	s.ms.mu.Unlock()
	select {
	case s.ms.notify <- struct{}{}:
	default:
	}
	return nil
}

func (s *session) Reset()        { s.from, s.utf8, s.to = "", false, nil }
func (s *session) Logout() error { return nil }

// parts decodes a multipart/alternative message into its plain and HTML parts.
func parts(msg *mail.Message) (text, html string, err error) {
	mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		return "", "", err
	}
	if mt != "multipart/alternative" {
		return "", "", fmt.Errorf("content type %s, want multipart/alternative", mt)
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return text, html, nil
		}
		if err != nil {
			return "", "", err
		}
		var rd io.Reader = p
		if p.Header.Get("Content-Transfer-Encoding") == "quoted-printable" {
			rd = quotedprintable.NewReader(p)
		}
		b, err := io.ReadAll(rd)
		if err != nil {
			return "", "", err
		}
		body := strings.ReplaceAll(string(b), "\r\n", "\n") // SMTP's line ends are CRLF
		ct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		switch ct {
		case "text/plain":
			text = body
		case "text/html":
			html = body
		}
	}
}

// selfSigned makes a certificate for 127.0.0.1, its PEM, and the pool that trusts it.
func selfSigned() (tls.Certificate, []byte, *x509.CertPool, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "mail.test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, nil, nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, certPEM, pool, nil
}
