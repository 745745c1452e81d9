package teamsapp_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/inquiry-bot/bot/storage/storagetest"
	"github.com/inquiry-bot/bot/teamsapp/teamsfake"
)

// TestRealInvokeShape: the channel invoke kept in testdata, with its key and serviceUrl pointed
// at this test's inquiry and fake, is read and answered as the fake's own invoke is.
func TestRealInvokeShape(t *testing.T) {
	b := setup(t, storagetest.SQLiteURL(t))
	rec := b.ask(mergeQuestion("real"))
	raw, err := os.ReadFile("testdata/invoke_adaptivecard_action_channel_RECONSTRUCTED.json")
	if err != nil {
		t.Fatal(err)
	}
	var act map[string]any
	if err := json.Unmarshal(raw, &act); err != nil {
		t.Fatal(err)
	}
	act["serviceUrl"] = b.fake.ServiceURL()
	act["value"].(map[string]any)["action"].(map[string]any)["data"].(map[string]any)["inquiry"] = rec.Key
	body, _ := json.Marshal(act)
	status, resp, err := b.fake.Send(b.ctx, b.url, b.fake.Token(teamsfake.TokenOptions{}), body)
	if err != nil || status != http.StatusOK || !bytes.Contains(resp, []byte(`"statusCode":200`)) {
		t.Fatalf("want 200 with a card, got %d %s %v", status, resp, err)
	}
	got, _ := b.svc.Get(b.ctx, rec.Key)
	if got.Answer == nil || got.Answer.Value.First() != "merge" || got.Answer.AnsweredBy != "b15a9416-0ad3-4172-9210-7beb711d3f70" {
		t.Fatalf("want merge by the payload's aadObjectId, got %+v", got.Answer)
	}
	if !strings.Contains(string(resp), "application/vnd.microsoft.card.adaptive") {
		t.Fatalf("the response is not a card: %s", resp)
	}
}
