package storage_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// TestEmailRecipientsRoundTrip: whom the email transport mails is kept as given, and an inquiry
// asked another way reads back with no recipients (null, not an empty object).
func TestEmailRecipientsRoundTrip(t *testing.T) {
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		mailed := newRecord("ns", "", "mailed")
		mailed.Config.Transport = inquiry.TransportEmail
		mailed.Email = &inquiry.EmailTarget{To: []string{"alice@example.com", "bob@example.org"}}
		got := create(t, b.store, mailed)
		require.Equal(t, mailed.Email, got.Email, "as created")
		read, err := b.store.Inquiry(ctx, mailed.Key)
		require.NoError(t, err)
		require.Equal(t, []string{"alice@example.com", "bob@example.org"}, read.Email.Recipients(), "as read")

		plain := create(t, b.store, newRecord("ns", "", "plain"))
		read, err = b.store.Inquiry(ctx, plain.Key)
		require.NoError(t, err)
		require.Nil(t, read.Email)
	})
}
