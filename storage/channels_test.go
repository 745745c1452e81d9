package storage_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// TestChannelsRoundTrip: the channels an inquiry is posted to read back as written, and a record
// that names none (stored before fan-out, or put to the inbox) reads back with none.
func TestChannelsRoundTrip(t *testing.T) {
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		rec := newRecord("ns", "", "fan-out")
		rec.Channels = []string{inquiry.TransportSlack, inquiry.TransportTeams}
		rec = create(t, b.store, rec)
		require.Equal(t, []string{"slack", "teams"}, rec.Channels)
		got, err := b.store.Inquiry(ctx, rec.Key)
		require.NoError(t, err)
		require.Equal(t, []string{"slack", "teams"}, got.Channels)

		old := create(t, b.store, newRecord("ns", "", "before-fan-out"))
		got, err = b.store.Inquiry(ctx, old.Key)
		require.NoError(t, err)
		require.Nil(t, got.Channels, "stored without channels: its transport alone (PostsTo)")
	})
}

// TestPlacementPerChannelAndStep: each channel keeps its own step-0 post and its own escalation
// steps; a repeat of a channel's step is ignored; a question's post on a channel other than Slack
// is on the record as a posted event naming the channel.
func TestPlacementPerChannelAndStep(t *testing.T) {
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		rec := newRecord("ns", "", "placed")
		rec.Channels = []string{inquiry.TransportSlack, inquiry.TransportTeams, inquiry.TransportEmail}
		rec = create(t, b.store, rec)

		teams := inquiry.Placement{Step: 0, Via: "teams", Channel: "19:c@thread.tacv2", TS: "1:act"}
		email := inquiry.Placement{Step: 0, Via: "email", Channel: "email", TS: "<q@example.com>"}
		slackStep := inquiry.Placement{Step: 1, Channel: "C2", TS: "1.2"}
		teamsStep := inquiry.Placement{Step: 1, Via: "teams", Channel: "19:c@thread.tacv2", TS: "1:esc"}
		for _, p := range []inquiry.Placement{teams, email, slackStep, teamsStep} {
			require.NoError(t, b.store.AddPlacement(ctx, rec.Key, p))
		}
		require.NoError(t, b.store.AddPlacement(ctx, rec.Key, inquiry.Placement{Step: 0, Via: "teams", Channel: "19:c@thread.tacv2", TS: "1:again"}), "a retried post is nothing new")
		require.NoError(t, b.store.AddPlacement(ctx, rec.Key, inquiry.Placement{Step: 1, Via: "slack", Channel: "C2", TS: "9.9"}), "Slack's step, however its channel is spelt")

		got, err := b.store.Inquiry(ctx, rec.Key)
		require.NoError(t, err)
		require.Equal(t, []inquiry.Placement{teams, email, slackStep, teamsStep}, got.Placements)
		where, ok := got.PostedOn(inquiry.TransportTeams)
		require.True(t, ok)
		require.Equal(t, "1:act", where.ID)
		_, ok = got.PostedOn(inquiry.TransportSlack)
		require.False(t, ok, "Slack has not posted it yet")

		evs, err := b.store.InquiryEvents(ctx, rec.Key)
		require.NoError(t, err)
		var posted []string
		for _, e := range evs {
			if e.Type == inquiry.EventPosted {
				posted = append(posted, e.By+": "+e.Summary())
			}
		}
		require.Equal(t, []string{
			"teams: on teams, in 19:c@thread.tacv2, ts 1:act",
			"email: on email, in email, ts <q@example.com>",
		}, posted, "one posted event per channel's question, none for an escalation step or a repeat")
	})
}
