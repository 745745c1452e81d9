package inquiry

import (
	"context"
	"fmt"
	"net/mail"
	"slices"
	"strings"
)

// TransportEmail is the key of the email transport: the question is mailed to the recipients an
// inquiry names in email.to, each with an answer link of their own (the README's Answer by email).
const TransportEmail = "email"

// Bounds of an inquiry's email recipients.
const (
	MaxEmailRecipients = 20
	// MaxEmailAddressChars is RFC 5321's bound of a forward path's address.
	MaxEmailAddressChars = 254
)

// EmailTarget is whom to mail an inquiry asked through the email transport: addresses such as
// "alice@example.com", each mailed alone with a link that answers as that recipient.
type EmailTarget struct {
	To []string `json:"to"`
}

// Recipients are the addresses of t (none for nil).
func (t *EmailTarget) Recipients() []string {
	if t == nil {
		return nil
	}
	return t.To
}

// ValidateEmail checks an inquiry's email recipients against the transport that asks it: the
// email transport, or an email object, needs at least one (an inquiry that names them is mailed
// to them beside its other channels); each is one plain address (no display name, no list), at
// most MaxEmailAddressChars long, named once.
func ValidateEmail(t *EmailTarget, transport string) error {
	to := t.Recipients()
	switch {
	case transport == TransportEmail && len(to) == 0:
		return invalid("email.to", "the email transport needs somebody to mail: name the recipients in email.to, such as [\"alice@example.com\"]")
	case t != nil && len(to) == 0:
		return invalid("email.to", "email names nobody to mail: name the recipients in email.to, such as [\"alice@example.com\"], or leave email out")
	case len(to) > MaxEmailRecipients:
		return invalid("email.to", "email.to names %d recipients but may name at most %d: ask a smaller group, or ask through Slack", len(to), MaxEmailRecipients)
	}
	seen := make(map[string]bool, len(to))
	for i, addr := range to {
		field := fmt.Sprintf("email.to[%d]", i)
		if err := checkAddress(field, addr); err != nil {
			return err
		}
		folded := strings.ToLower(addr)
		if seen[folded] {
			return invalid(field, "%s names %q again: name each recipient once", field, addr)
		}
		seen[folded] = true
	}
	return nil
}

// checkAddress accepts one bare address: what net/mail reads as an address and nothing more.
func checkAddress(field, addr string) error {
	const fix = "give one plain address such as \"alice@example.com\""
	if err := checkName(field, addr, MaxEmailAddressChars, "address", fix); err != nil {
		return err
	}
	if !bareAddress(addr) {
		return invalid(field, "%s %q is not an email address: %s", field, addr, fix)
	}
	return nil
}

// bareAddress reports whether s is one address as net/mail reads it and nothing more: no name,
// no brackets, no list. Email recipients and the recipients of links are both.
func bareAddress(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Name == "" && a.Address == s
}

// RecipientLink is the answer link of recipient, one of rec's email recipients, for the transport
// that mails it (LinkFor), refused for an address the asker did not name in email.to.
func (s *Service) RecipientLink(_ context.Context, rec *Record, recipient string) (string, error) {
	if !slices.ContainsFunc(rec.Email.Recipients(), func(to string) bool { return strings.EqualFold(to, recipient) }) {
		return "", Errorf(CodeForbidden, "%s is not among the recipients of inquiry %s: only the addresses in its email.to are mailed a link", OneLine(recipient, 80), rec.Key)
	}
	l, err := s.LinkFor(rec, recipient)
	if err != nil {
		return "", err
	}
	return l.URL, nil
}
