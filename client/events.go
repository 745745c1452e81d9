package client

import (
	"context"
	"net/http"
	"net/url"

	"github.com/inquiry-bot/bot/inquiry"
)

// Events returns the record of the inquiry with the server key, oldest first
// (GET /v1/inquiries/{key}/events).
func (c *Client) Events(ctx context.Context, key string) ([]inquiry.Event, error) {
	out, err := call[struct {
		Events []inquiry.Event `json:"events"`
	}](ctx, c, http.MethodGet, "/v1/inquiries/"+url.PathEscape(key)+"/events", nil, nil, 0)
	if err != nil {
		return nil, err
	}
	return out.Events, nil
}
