package slackapp

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"
)

var errAppToken = errors.New("slack socket mode: Slack refused SLACK_APP_TOKEN: set it to an app-level token (xapp-…) with the connections:write scope")

// RunSocketMode connects to Slack over Socket Mode (no public URL needed) and serves
// interactions, events and slash commands through the same handlers as the HTTP endpoints,
// until ctx ends. slack-go reconnects by itself; RunSocketMode returns when ctx ends (nil), when
// Slack refuses the app-level token, or when reconnecting fails for good.
func (a *App) RunSocketMode(ctx context.Context) error {
	if a.cfg.AppToken == "" {
		return errors.New("socket mode needs SLACK_APP_TOKEN (an app-level token xapp-… with connections:write)")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	smc := socketmode.New(a.client)
	runErr := make(chan error, 1)
	go func() { runErr <- smc.RunContext(ctx) }()

	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case <-ctx.Done():
			<-runErr
			return nil
		case err := <-runErr:
			cancel()
			if ctx.Err() != nil && errors.Is(err, context.Canceled) {
				return nil
			}
			var se slack.SlackErrorResponse
			if errors.As(err, &se) {
				switch se.Err {
				case "invalid_auth", "not_authed", "not_allowed_token_type", "token_revoked", "account_inactive":
					return fmt.Errorf("%w: %w", errAppToken, err)
				}
			}
			return fmt.Errorf("slack socket mode: %w", err)
		case evt := <-smc.Events:
			if evt.Type == socketmode.EventTypeInvalidAuth {
				cancel()
				<-runErr
				return errAppToken
			}
			// Each envelope on its own: one slow answer must not delay the next ack.
			wg.Add(1)
			go func() {
				defer wg.Done()
				payload, ack := a.dispatchSocket(ctx, evt)
				if ack && evt.Request != nil {
					if err := smc.AckCtx(ctx, evt.Request.EnvelopeID, payload); err != nil {
						a.log.WarnContext(ctx, "ack a socket mode envelope", "type", evt.Type, "err", err)
					}
				}
			}()
		}
	}
}

// dispatchSocket serves one Socket Mode event with the handlers the HTTP endpoints use. It
// returns the ack payload and whether to ack at all: an event that failed is left unacked, so
// Slack sends it again, as a 500 does over HTTP.
func (a *App) dispatchSocket(ctx context.Context, evt socketmode.Event) (payload any, ack bool) {
	switch evt.Type {
	case socketmode.EventTypeInteractive:
		ic, ok := evt.Data.(slack.InteractionCallback)
		if !ok {
			return nil, true
		}
		resp, err := a.handleInteraction(ctx, ic)
		if err != nil {
			a.log.ErrorContext(ctx, "slack interaction failed", "type", ic.Type, "err", err)
		}
		return resp, true
	case socketmode.EventTypeEventsAPI:
		ev, ok := evt.Data.(slackevents.EventsAPIEvent)
		if !ok {
			return nil, true
		}
		if err := a.handleEvent(ctx, ev); err != nil {
			a.log.WarnContext(ctx, "slack event failed; Slack will retry", "err", err)
			return nil, false
		}
		return nil, true
	case socketmode.EventTypeSlashCommand:
		cmd, ok := evt.Data.(slack.SlashCommand)
		if !ok {
			return nil, true
		}
		return a.handleCommand(ctx, cmd), true
	case socketmode.EventTypeConnecting:
		a.log.InfoContext(ctx, "connecting to slack over socket mode")
	case socketmode.EventTypeConnected:
		a.log.InfoContext(ctx, "connected to slack over socket mode")
	case socketmode.EventTypeConnectionError, socketmode.EventTypeIncomingError, socketmode.EventTypeErrorBadMessage,
		socketmode.EventTypeErrorWriteFailed:
		a.log.WarnContext(ctx, "slack socket mode trouble", "type", evt.Type, "data", fmt.Sprint(evt.Data))
	case socketmode.EventTypeDisconnect:
		a.log.InfoContext(ctx, "slack asked to reconnect")
	}
	return nil, false
}
