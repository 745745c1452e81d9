package adaptivecard

import (
	"encoding/json"
	"fmt"
)

// Check refuses a card Teams would refuse or show otherwise than meant: another version than
// Version, an ActionSet past MaxButtons or empty, an input without an id or with one used twice,
// more than MaxBytes of JSON. It reads the card's JSON, so that a fake Teams can check what it
// receives.
func Check(card json.RawMessage) error {
	if len(card) > MaxBytes {
		return fmt.Errorf("the card is %d bytes and Teams keeps a message under %d: shorten its text", len(card), MaxBytes)
	}
	var c struct {
		Type    string           `json:"type"`
		Version string           `json:"version"`
		Body    []map[string]any `json:"body"`
	}
	if err := json.Unmarshal(card, &c); err != nil {
		return fmt.Errorf("the card is not a JSON object: %v", err)
	}
	if c.Type != "AdaptiveCard" {
		return fmt.Errorf("the card's type is %q, not AdaptiveCard", c.Type)
	}
	if c.Version != Version {
		return fmt.Errorf("the card's version is %q and Teams renders Action.Execute in version %s: set it to %s", c.Version, Version, Version)
	}
	ids := map[string]bool{}
	var walk func(els []map[string]any) error
	walk = func(els []map[string]any) error {
		for _, e := range els {
			t, _ := e["type"].(string)
			switch {
			case t == "":
				return fmt.Errorf("an element of the card has no type")
			case t == "ActionSet":
				acts, _ := e["actions"].([]any)
				if len(acts) == 0 || len(acts) > MaxButtons {
					return fmt.Errorf("an ActionSet holds %d actions and Teams shows 1 to %d", len(acts), MaxButtons)
				}
			case len(t) > 6 && t[:6] == "Input.":
				id, _ := e["id"].(string)
				if id == "" {
					return fmt.Errorf("an %s has no id: every input needs a unique id", t)
				}
				if ids[id] {
					return fmt.Errorf("the input id %q is used twice: every input needs a unique id", id)
				}
				ids[id] = true
			}
			if items, ok := e["items"].([]any); ok {
				var sub []map[string]any
				for _, it := range items {
					if m, ok := it.(map[string]any); ok {
						sub = append(sub, m)
					}
				}
				if err := walk(sub); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(c.Body)
}
