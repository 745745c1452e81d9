// Package teamsapp is the Microsoft Teams channel, through the Bot Framework: it posts an
// inquiry to a Teams conversation as an Adaptive Card (package adaptivecard) and updates that
// message when the inquiry changes or resolves (inquiry.Transport), and it serves the bot's
// messaging endpoint, POST /teams/messages, where Teams delivers the adaptiveCard/action invoke
// of a click; the answer goes to the service with the clicker's Entra object id
// (inquiry.ChannelTeams), which decides whether they may answer, and the invoke is answered with
// the card as it now stands.
//
// Every request to the endpoint is checked before its body is read: the Authorization bearer
// JWT must be signed by a key of the Bot Framework's OpenID metadata (TEAMS_OPENID_URL), issued
// by https://api.botframework.com to this app (audience TEAMS_APP_ID), within its validity (five
// minutes' skew), and its serviceurl claim must equal the activity's serviceUrl. Anything else
// is 401 and nothing is read.
//
// Calls to the Connector carry the bot's own token, fetched from TEAMS_TOKEN_URL with the
// client-credentials grant and kept until shortly before it expires (golang.org/x/oauth2). A 429
// is retried after its Retry-After, a 5xx or 412 with the dispatcher's backoff; a 403 or 404 of
// the conversation is a fatal error saying to add the bot to that team or chat.
//
// The fake Teams the tests run against is package teamsfake; testdata holds real Bot Framework
// payloads (testdata/README.md says where each comes from).
package teamsapp
