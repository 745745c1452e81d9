package slackapp

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/inquiry-bot/bot/blockkit"
	"github.com/inquiry-bot/bot/inquiry"
)

// groupTimeout bounds a usergroups.users.list inside an interaction's three seconds.
const groupTimeout = 1500 * time.Millisecond

// refusal returns "" when user may answer rec, else the sentence to tell them. The rule is the
// domain's (inquiry.PersonMayAnswer): whoever requested_by names may not; with no answerers
// anybody else may; otherwise user must be listed or be a member of a listed user group. A group
// that cannot be resolved right now admits nobody: the check fails closed.
func (a *App) refusal(ctx context.Context, rec *inquiry.Record, user string) string {
	p := a.permission(ctx, rec, user)
	switch {
	case p.Requester:
		return sayRequester // four eyes, before any list: whoever asked never gives it
	case p.Allowed:
		return ""
	}
	return sayNotAnswerer(inquiry.Answerers(rec), p.Unchecked)
}

// permission is inquiry.PersonMayAnswer with the members of user groups read from Slack
// (cached).
func (a *App) permission(ctx context.Context, rec *inquiry.Record, user string) inquiry.Permission {
	return inquiry.PersonMayAnswer(rec, user, func(id string) (bool, error) {
		if !blockkit.IsGroupID(id) {
			return false, nil
		}
		members, err := a.groups.members(ctx, id)
		if err != nil {
			a.log.WarnContext(ctx, "resolve a user group of answerers", "group", id, "key", rec.Key, "err", err)
			return false, err
		}
		return members[user], nil
	})
}

// groupMembers asks Slack for a user group's members.
func (a *App) groupMembers(ctx context.Context, group string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, groupTimeout)
	defer cancel()
	return a.client.GetUserGroupMembersContext(ctx, group)
}

// groupCache keeps user group members briefly: usergroups.users.list is Tier 2 (about 20 a
// minute), far fewer than the clicks of a busy channel.
type groupCache struct {
	ttl    time.Duration
	now    func() time.Time
	lookup func(ctx context.Context, group string) ([]string, error)

	mu sync.Mutex
	m  map[string]groupEntry
}

type groupEntry struct {
	members map[string]bool
	at      time.Time
}

func (c *groupCache) members(ctx context.Context, group string) (map[string]bool, error) {
	c.mu.Lock()
	e, ok := c.m[group]
	c.mu.Unlock()
	if ok && c.now().Sub(e.at) < c.ttl {
		return e.members, nil
	}
	list, err := c.lookup(ctx, group)
	if err != nil {
		return nil, err
	}
	e = groupEntry{members: make(map[string]bool, len(list)), at: c.now()}
	for _, u := range list {
		e.members[strings.TrimSpace(u)] = true
	}
	c.mu.Lock()
	c.m[group] = e
	c.mu.Unlock()
	return e.members, nil
}
