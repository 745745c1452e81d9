package teamsapp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/inquiry-bot/bot/adaptivecard"
	"github.com/inquiry-bot/bot/inquiry"
)

// The Bot Framework's endpoints, when the environment names none.
const (
	DefaultOpenIDURL = "https://login.botframework.com/v1/.well-known/openidconfiguration"
	// DefaultServiceURL is where a conversation is reached when its teams object names no
	// service_url.
	DefaultServiceURL = "https://smba.trafficmanager.net/teams/"
	connectorScope    = "https://api.botframework.com/.default"
	maxActivityBytes  = 256 << 10
)

// DefaultTokenURL is the token endpoint of a bot of tenant ("" for a multi-tenant bot).
func DefaultTokenURL(tenant string) string {
	if tenant == "" {
		tenant = "botframework.com"
	}
	return "https://login.microsoftonline.com/" + tenant + "/oauth2/v2.0/token"
}

// Config is the Teams app's settings: the bot's Microsoft App ID and password (client secret),
// its tenant for a single-tenant bot, and the endpoints to use instead of Microsoft's.
type Config struct {
	AppID     string // TEAMS_APP_ID
	Password  string // TEAMS_APP_PASSWORD
	TenantID  string // TEAMS_TENANT_ID: activities of other tenants are refused
	OpenIDURL string // TEAMS_OPENID_URL, default DefaultOpenIDURL
	TokenURL  string // TEAMS_TOKEN_URL, default DefaultTokenURL(TenantID)
	Service   *inquiry.Service
	// HTTPClient makes every outgoing call (nil: a client with a 30 s timeout).
	HTTPClient *http.Client
	Log        *slog.Logger
}

// App is the Teams channel: the messaging endpoint (ServeHTTP) and the transport.
type App struct {
	cfg    Config
	svc    *inquiry.Service
	keys   *keySet
	tokens oauth2.TokenSource
	client *http.Client
	log    *slog.Logger
	// names are the names Teams gave people, by conversation and Entra object id (names.go).
	names *lru.Cache[nameKey, string]
}

var _ inquiry.Transport = (*App)(nil)

// New checks cfg and returns the app. Nothing is fetched until it is used.
func New(cfg Config) (*App, error) {
	switch {
	case cfg.Service == nil:
		return nil, errors.New("teamsapp: Config.Service is required")
	case strings.TrimSpace(cfg.AppID) == "":
		return nil, errors.New("TEAMS_APP_ID is required for the Teams transport: set it to the Microsoft App ID of the bot's Azure Bot resource")
	case cfg.Password == "":
		return nil, errors.New("TEAMS_APP_PASSWORD is required for the Teams transport: set it to a client secret of the bot's app registration")
	}
	if cfg.OpenIDURL == "" {
		cfg.OpenIDURL = DefaultOpenIDURL
	}
	if cfg.TokenURL == "" {
		cfg.TokenURL = DefaultTokenURL(cfg.TenantID)
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	names, err := lru.New[nameKey, string](maxNames)
	if err != nil {
		return nil, err
	}
	a := &App{cfg: cfg, svc: cfg.Service, client: cfg.HTTPClient, log: cfg.Log, names: names}
	a.keys = &keySet{metadataURL: cfg.OpenIDURL, client: cfg.HTTPClient, now: a.now}
	cc := clientcredentials.Config{ClientID: cfg.AppID, ClientSecret: cfg.Password, TokenURL: cfg.TokenURL, Scopes: []string{connectorScope}}
	// The token source keeps the token until shortly before it expires, and fetches the next.
	a.tokens = cc.TokenSource(context.WithValue(context.Background(), oauth2.HTTPClient, cfg.HTTPClient))
	return a, nil
}

func (a *App) now() time.Time {
	return a.svc.Clock()
}

// activity is what the bot reads of a Bot Framework activity.
type activity struct {
	Type        string `json:"type"`
	Name        string `json:"name"`
	ChannelID   string `json:"channelId"`
	ServiceURL  string `json:"serviceUrl"`
	ReplyToID   string `json:"replyToId"`
	ID          string `json:"id"`
	ChannelData struct {
		Channel struct {
			ID string `json:"id"`
		} `json:"channel"`
	} `json:"channelData"`
	From struct {
		ID          string `json:"id"`
		Name        string `json:"name"`
		AADObjectID string `json:"aadObjectId"`
	} `json:"from"`
	Conversation struct {
		ID               string `json:"id"`
		ConversationType string `json:"conversationType"`
		TenantID         string `json:"tenantId"`
	} `json:"conversation"`
	Value struct {
		Action struct {
			Type string         `json:"type"`
			Verb string         `json:"verb"`
			Data map[string]any `json:"data"`
		} `json:"action"`
	} `json:"value"`
}

// ServeHTTP is the messaging endpoint, POST /teams/messages: the token first, then the
// activity.
func (a *App) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "Teams delivers activities with POST.", http.StatusMethodNotAllowed)
		return
	}
	c, err := a.verify(r)
	if err != nil {
		a.log.WarnContext(r.Context(), "teams request refused", "err", err)
		http.Error(w, "The request carries no valid Bot Framework token: Teams signs every activity; check TEAMS_APP_ID and TEAMS_OPENID_URL.", http.StatusUnauthorized)
		return
	}
	var act activity
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxActivityBytes))
	if err := dec.Decode(&act); err != nil {
		http.Error(w, "The activity is not a JSON object: send a Bot Framework activity.", http.StatusBadRequest)
		return
	}
	switch {
	case c.serviceURL != act.ServiceURL:
		a.log.WarnContext(r.Context(), "teams activity refused: serviceUrl differs from the token's", "claim", c.serviceURL, "activity", act.ServiceURL)
		http.Error(w, "The activity's serviceUrl is not the one its token was issued for.", http.StatusUnauthorized)
		return
	case !c.endorsed(act.ChannelID):
		http.Error(w, "The key that signed this activity is not endorsed for its channel.", http.StatusForbidden)
		return
	case a.cfg.TenantID != "" && act.Conversation.TenantID != "" && act.Conversation.TenantID != a.cfg.TenantID:
		http.Error(w, "The activity comes from another tenant than TEAMS_TENANT_ID: this bot answers its own tenant only.", http.StatusForbidden)
		return
	}
	switch {
	case act.Type == "invoke" && act.Name == "adaptiveCard/action":
		a.invokeResponse(w, a.action(r.Context(), &act))
	case act.Type == "conversationUpdate":
		// Where the bot was added: the conversation id and serviceUrl a teams object names.
		a.log.InfoContext(r.Context(), "teams conversation", "conversation", act.Conversation.ID, "type", act.Conversation.ConversationType, "service_url", act.ServiceURL)
		w.WriteHeader(http.StatusOK)
	case act.Type == "message":
		a.sayWhere(r.Context(), &act)
		w.WriteHeader(http.StatusOK)
	default:
		w.WriteHeader(http.StatusOK)
	}
}

// sayWhere answers a message to the bot (an @mention in a channel, a word in a chat) with the
// teams object that asks in that conversation: the one thing an asker needs from Teams. In a
// channel it names the channel itself, so that each question starts a thread of its own.
func (a *App) sayWhere(ctx context.Context, act *activity) {
	conv := act.Conversation.ID
	if ch := act.ChannelData.Channel.ID; ch != "" {
		conv = ch
	}
	target, _ := json.Marshal(map[string]any{"teams": inquiry.TeamsTarget{Conversation: conv, ServiceURL: act.ServiceURL}})
	body := map[string]any{
		"type":       "message",
		"textFormat": "markdown",
		"text":       "To ask a question here, add this to the inquiry you POST to /v1/inquiries:\n\n```\n" + string(target) + "\n```",
		"replyToId":  act.ID,
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := a.send(ctx, http.MethodPost, act.ServiceURL, act.Conversation.ID, "", body); err != nil {
		a.log.WarnContext(ctx, "teams: could not say where to ask", "conversation", act.Conversation.ID, "err", err)
	}
}

// invokeResponse is the body Teams reads of an invoke: {statusCode, type, value}.
type invokeResponse struct {
	StatusCode int    `json:"statusCode"`
	Type       string `json:"type"`
	Value      any    `json:"value"`
}

func (a *App) invokeResponse(w http.ResponseWriter, resp invokeResponse) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(resp)
}

func cardResponse(c *adaptivecard.Card) invokeResponse {
	return invokeResponse{StatusCode: http.StatusOK, Type: adaptivecard.ContentType, Value: c}
}

// message is an invoke response Teams shows as a short message, the card left as it is: for a
// click that could not be taken, so that the person can fix it and click again.
func message(sentence string) invokeResponse {
	return invokeResponse{StatusCode: http.StatusOK, Type: "application/vnd.microsoft.activity.message", Value: sentence}
}

// action answers the inquiry a card's Action.Execute names, as the person who clicked, and says
// what became of it: the card as it now stands, or why nothing was recorded.
func (a *App) action(ctx context.Context, act *activity) invokeResponse {
	data, verb := act.Value.Action.Data, act.Value.Action.Verb
	key := adaptivecard.Key(data)
	if verb != adaptivecard.Verb && verb != adaptivecard.VerbExtend && verb != adaptivecard.VerbPage || key == "" {
		return message("This card's button is not one of the bot's questions, so nothing was recorded.")
	}
	rec, err := a.svc.Get(ctx, key)
	if inquiry.ErrorCode(err) == inquiry.CodeNotFound {
		return cardResponse(adaptivecard.Note("This question is not known to the bot any more, so nothing was recorded; ask whoever asked it whether it still stands."))
	}
	if err != nil {
		a.log.WarnContext(ctx, "teams click: read the inquiry", "key", key, "err", err)
		return message("The bot could not read this question just now, so nothing was recorded: click again in a minute.")
	}
	if rec.Status.Resolved() || rec.DueAt(a.now()) {
		return cardResponse(adaptivecard.WithNote(adaptivecard.Resolved(a.shown(ctx, rec)), closed(rec, a.now())))
	}
	who := inquiry.Identity{Channel: inquiry.ChannelTeams, ID: act.From.AADObjectID}
	a.heard(rec, who, act.From.Name)
	switch verb {
	case adaptivecard.VerbExtend:
		return a.extend(ctx, rec, who)
	case adaptivecard.VerbPage:
		return a.page(ctx, rec, who)
	}
	reply, err := adaptivecard.ReadReply(rec, data)
	if err != nil {
		return message(err.Error())
	}
	got, err := a.svc.AnswerRead(inquiry.WithVia(ctx, inquiry.ViaTeams), rec, reply, who)
	switch code := inquiry.ErrorCode(err); {
	case err == nil:
		a.log.InfoContext(ctx, "teams answer taken", "key", key, "by", who.ID)
		return cardResponse(a.card(ctx, got))
	case code == inquiry.CodeAlreadyResolved:
		if got == nil {
			got, _ = a.svc.Get(ctx, key)
		}
		if got == nil {
			return message("This question was already decided, so your click changed nothing.")
		}
		return cardResponse(adaptivecard.WithNote(adaptivecard.Resolved(a.shown(ctx, got)), closed(got, a.now())))
	case code == inquiry.CodeForbidden, code == inquiry.CodeInvalidAnswer, code == inquiry.CodeInvalidInquiry:
		return message(sentence(err))
	default:
		a.log.WarnContext(ctx, "teams click: answer", "key", key, "err", err)
		return message("The bot could not record your answer just now: click again in a minute.")
	}
}

// extend gives rec more time (its extend.by) as who, by the service's rule for it — the one
// that decides who may answer — and answers with the card showing the new deadline; the
// service then updates the card for everyone.
func (a *App) extend(ctx context.Context, rec *inquiry.Record, who inquiry.Identity) invokeResponse {
	got, err := a.svc.Extend(ctx, rec.Key, 0, who)
	switch code := inquiry.ErrorCode(err); {
	case err == nil:
		a.log.InfoContext(ctx, "teams extension given", "key", rec.Key, "by", who.ID, "extended_by", got.ExtendedBy)
		return cardResponse(a.card(ctx, got))
	case code == inquiry.CodeAlreadyResolved:
		if got == nil || got.Status == inquiry.StatusPending {
			got = rec
		}
		return cardResponse(adaptivecard.WithNote(adaptivecard.Resolved(a.shown(ctx, got)), closed(got, a.now())))
	case code == inquiry.CodeForbidden, code == inquiry.CodeBadRequest:
		return message(sentence(err))
	default:
		a.log.WarnContext(ctx, "teams click: extend", "key", rec.Key, "err", err)
		return message("The bot could not give this question more time just now: click Extend again in a minute.")
	}
}

// page answers a click on "View all" or "Edit on the web" of a question that names who may
// answer it with the clicker's own link to its page (inquiry.Service.PersonalLink, which
// answers as them there), on the card as it stands, which Teams shows to the clicker alone:
// everybody else's card, and the message, stay as they are. Whoever may not answer it is told
// why in words.
func (a *App) page(ctx context.Context, rec *inquiry.Record, who inquiry.Identity) invokeResponse {
	url, err := a.svc.PersonalLink(ctx, rec.Key, who)
	switch code := inquiry.ErrorCode(err); {
	case err == nil:
		a.log.InfoContext(ctx, "teams: a person's own link given", "key", rec.Key, "to", who.ID)
		return cardResponse(adaptivecard.WithPage(a.card(ctx, rec), url))
	case code == inquiry.CodeAlreadyResolved:
		got, _ := a.svc.Get(ctx, rec.Key)
		if got == nil {
			got = rec
		}
		return cardResponse(adaptivecard.WithNote(adaptivecard.Resolved(a.shown(ctx, got)), closed(got, a.now())))
	case code == inquiry.CodeForbidden, code == inquiry.CodeBadRequest, code == inquiry.CodeUnavailable:
		return message(sentence(err))
	default:
		a.log.WarnContext(ctx, "teams click: a person's own link", "key", rec.Key, "err", err)
		return message("The bot could not make your link to this question's page just now: click again in a minute.")
	}
}

// closed says to whoever clicked a closed question's card why the click changed nothing.
func closed(rec *inquiry.Record, now time.Time) string {
	switch {
	case rec.Status == inquiry.StatusCancelled:
		return "This question was cancelled by whoever asked it, so your click changed nothing."
	case rec.Status == inquiry.StatusFailed:
		return "This question could not be asked, so your click changed nothing."
	case rec.Status == inquiry.StatusExpired || rec.DueAt(now):
		return "This question expired before anybody answered it, so your click changed nothing."
	}
	return "This question was already decided, so your click changed nothing."
}

// sentence is the message of err as a person reads it.
func sentence(err error) string {
	if e, ok := errors.AsType[*inquiry.Error](err); ok {
		return e.Message
	}
	return err.Error()
}

// Path is the bot's messaging endpoint, which the Azure Bot resource names.
const Path = "/teams/messages"

// Mount adds the messaging endpoint to r.
func (a *App) Mount(r gin.IRoutes) { r.POST(Path, gin.WrapH(a)) }
