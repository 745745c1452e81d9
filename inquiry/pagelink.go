package inquiry

import (
	"context"
	"slices"
	"strings"
)

// PageLink is a link of recipient, one of rec's email recipients, to rec's answer page whatever
// rec's status: once rec is resolved it answers nothing and shows what was decided (OpenLink),
// which is how the outcome mail points to the whole of what it shortens. RecipientLink, which
// answers, is refused once rec is resolved.
func (s *Service) PageLink(_ context.Context, rec *Record, recipient string) (string, error) {
	if !slices.ContainsFunc(rec.Email.Recipients(), func(to string) bool { return strings.EqualFold(to, recipient) }) {
		return "", Errorf(CodeForbidden, "%s is not among the recipients of inquiry %s: only the addresses in its email.to are mailed a link", OneLine(recipient, 80), rec.Key)
	}
	secret, err := s.linkSecret()
	if err != nil {
		return "", err
	}
	if recipient, err = CheckRecipient(recipient); err != nil {
		return "", err
	}
	return s.mint(secret, rec, recipient, 0, "").URL, nil
}
