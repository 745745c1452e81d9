package email

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
)

// Config is how the transport reaches its mail server: SMTP_URL and EMAIL_FROM (the README's Answer
// by email).
type Config struct {
	Host string
	Port int
	// Implicit is TLS from the first byte (smtps://, port 465 by default); otherwise the session
	// starts in the clear and STARTTLS is required before anything else is said (smtp://, 587).
	Implicit bool
	Username string
	Password string
	// From is the sender every message carries: EMAIL_FROM.
	From string
	// TLS, when set, replaces the system's TLS settings (tests trust their own certificate).
	TLS *tls.Config
}

// ParseConfig reads SMTP_URL (smtp://user:pass@host:587 for STARTTLS, smtps://user:pass@host:465
// for implicit TLS; user and password are optional and may be percent-encoded) and EMAIL_FROM (an
// address, optionally with a name: "Inquiry bot <bot@example.com>"). The error is one sentence
// naming the variable and what it expects. The password never appears in it.
func ParseConfig(smtpURL, from string) (Config, error) {
	const expect = "expected smtp://user:password@host:587 (STARTTLS) or smtps://user:password@host:465 (implicit TLS)"
	u, err := url.Parse(strings.TrimSpace(smtpURL))
	if err != nil {
		return Config{}, fmt.Errorf("SMTP_URL is not a URL: %s", expect)
	}
	var c Config
	switch u.Scheme {
	case "smtp":
		c.Port = 587
	case "smtps":
		c.Port, c.Implicit = 465, true
	default:
		return Config{}, fmt.Errorf("SMTP_URL has the scheme %q: %s", u.Scheme, expect)
	}
	c.Host = u.Hostname()
	if c.Host == "" {
		return Config{}, fmt.Errorf("SMTP_URL names no host: %s", expect)
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return Config{}, fmt.Errorf("SMTP_URL has the port %q, which is not one of 1..65535: %s", p, expect)
		}
		c.Port = n
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return Config{}, fmt.Errorf("SMTP_URL has a path, query or fragment, which it does not read: %s", expect)
	}
	if u.User != nil {
		c.Username = u.User.Username()
		c.Password, _ = u.User.Password()
	}
	if strings.TrimSpace(from) == "" {
		return Config{}, fmt.Errorf("EMAIL_FROM is not set: the email transport needs a sender such as \"Inquiry bot <bot@example.com>\"")
	}
	addr, err := mail.ParseAddress(from)
	if err != nil {
		return Config{}, fmt.Errorf("EMAIL_FROM %q is not an address: give one such as \"Inquiry bot <bot@example.com>\"", from)
	}
	c.From = addr.String()
	return c, nil
}

// Addr is host:port.
func (c Config) Addr() string { return net.JoinHostPort(c.Host, strconv.Itoa(c.Port)) }

// String describes the config for a log line, without the password.
func (c Config) String() string {
	mode := "STARTTLS"
	if c.Implicit {
		mode = "implicit TLS"
	}
	who := ""
	if c.Username != "" {
		who = " as " + c.Username
	}
	return fmt.Sprintf("%s (%s%s) from %s", c.Addr(), mode, who, c.From)
}

// LogValue is the config in a structured log line: String's description, never the password
// (slog's JSON handler would otherwise write every field).
func (c Config) LogValue() slog.Value { return slog.StringValue(c.String()) }

// GoString is the config under %#v: String's description, never the password.
func (c Config) GoString() string { return "email.Config(" + c.String() + ")" }
