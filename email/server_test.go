package email_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"net"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/inquiry-bot/bot/email"
)

// mailServer is a real SMTP server (emersion/go-smtp) in the test's process: STARTTLS or
// implicit TLS with a certificate of its own, AUTH PLAIN for one user, and replies to RCPT TO
// chosen by the test.
type mailServer struct {
	srv      *smtp.Server
	addr     string
	implicit bool
	trust    *x509.CertPool

	mu       sync.Mutex
	received []received
	logins   int
	// rcpt, when set, answers RCPT TO: nil accepts.
	rcpt func(to string) error
}

// received is one message as the server took it.
type received struct {
	From string
	To   []string
	Msg  *mail.Message
	Body string
}

const (
	smtpUser     = "bot"
	smtpPassword = "s3cret pass"
)

func newMailServer(t *testing.T, implicit bool) *mailServer {
	t.Helper()
	cert, pool := selfSigned(t)
	ms := &mailServer{implicit: implicit, trust: pool}
	s := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &session{ms: ms}, nil }))
	s.Domain = "mail.test"
	s.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	s.ReadTimeout, s.WriteTimeout = 10*time.Second, 10*time.Second
	s.MaxMessageBytes = 1 << 20
	var ln net.Listener
	var err error
	if implicit {
		ln, err = tls.Listen("tcp", "127.0.0.1:0", s.TLSConfig)
	} else {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		t.Fatal(err)
	}
	ms.srv, ms.addr = s, ln.Addr().String()
	go func() { _ = s.Serve(ln) }()
	t.Cleanup(func() { _ = s.Close() })
	return ms
}

// config is the transport's config for this server, trusting its certificate.
func (ms *mailServer) config(t *testing.T, password string) email.Config {
	t.Helper()
	scheme := "smtp"
	if ms.implicit {
		scheme = "smtps"
	}
	host, port, _ := net.SplitHostPort(ms.addr)
	u := scheme + "://" + smtpUser + ":" + strings.ReplaceAll(password, " ", "%20") + "@" + host + ":" + port
	cfg, err := email.ParseConfig(u, "Inquiry bot <bot@example.com>")
	if err != nil {
		t.Fatal(err)
	}
	cfg.TLS = &tls.Config{RootCAs: ms.trust, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
	return cfg
}

func (ms *mailServer) messages() []received {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	return append([]received(nil), ms.received...)
}

type session struct {
	ms     *mailServer
	authed bool
	from   string
	to     []string
}

var _ smtp.AuthSession = (*session)(nil)

func (s *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != smtpUser || pass != smtpPassword {
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "authentication credentials invalid"}
		}
		s.authed = true
		s.ms.mu.Lock()
		s.ms.logins++
		s.ms.mu.Unlock()
		return nil
	}), nil
}

func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	if !s.authed {
		return smtp.ErrAuthRequired
	}
	s.from = from
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
	msg, err := mail.ReadMessage(r)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(msg.Body)
	if err != nil {
		return err
	}
	s.ms.mu.Lock()
	s.ms.received = append(s.ms.received, received{From: s.from, To: s.to, Msg: msg, Body: string(body)})
	s.ms.mu.Unlock()
	return nil
}

func (s *session) Reset()        { s.from, s.to = "", nil }
func (s *session) Logout() error { return nil }

// selfSigned makes a certificate for 127.0.0.1 and the pool that trusts it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mail.test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// smtpErr is a reply the server gives.
func smtpErr(code int, msg string) error {
	return &smtp.SMTPError{Code: code, EnhancedCode: smtp.EnhancedCode{code / 100, 1, 1}, Message: msg}
}

var _ = errors.New
