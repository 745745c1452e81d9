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

// refusal says nothing (saying.empty) when user may answer rec, else the sentence to tell them. The decision is
// the service's one rule (inquiry.MayAnswer), from the identity of the Slack user; this only
// says it in Slack's words, naming who may answer with mentions.
func (a *App) refusal(ctx context.Context, rec *inquiry.Record, user string) saying {
	return saySlackRefusal(a.permission(ctx, rec, user))
}

// saySlackRefusal is the sentence of a refusal of MayAnswer in Slack: nothing when allowed.
func saySlackRefusal(p inquiry.Permission) saying {
	switch {
	case p.Allowed:
		return saying{}
	case p.Refused == inquiry.RefusedRequester:
		return say(sayRequester) // four eyes, before any list: whoever asked never gives it
	case p.Refused == inquiry.RefusedNotNamed:
		return sayNotAnswerer(p.Answerers, p.Unchecked)
	}
	return sayForbidden(p.Err())
}

// permission is inquiry.MayAnswer of the Slack user user.
func (a *App) permission(ctx context.Context, rec *inquiry.Record, user string) inquiry.Permission {
	return inquiry.MayAnswer(rec, a.identity(ctx, rec.Key, user))
}

// identity is the Slack user user as the service knows them: "slack:U…", with the members of
// user groups read from Slack (cached) for the rule to weigh.
func (a *App) identity(ctx context.Context, key, user string) inquiry.Identity {
	return inquiry.SlackUser(user, func(id string) (bool, error) {
		if !blockkit.IsGroupID(id) {
			return false, nil
		}
		members, err := a.groups.members(ctx, id)
		if err != nil {
			a.log.WarnContext(ctx, "resolve a user group of answerers", "group", id, "key", key, "err", err)
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
