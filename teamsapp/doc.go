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
// Deadlines work as in Slack. An escalation step of a question asked in Teams names a Teams
// conversation and Entra object ids: the card is posted there too (a placement via teams, which
// Update keeps up to date with the question's own card), mentioning the step's answerers by the
// names the conversation's roster gives; a step without a conversation that mentions them calls
// on them in reply to the question. A card whose inquiry allows more time carries an Extend
// button (verb extend), which goes through Service.Extend as the person who clicked.
//
// A lost post is posted again. The Connector takes no idempotency key, and it has no operation
// that lists a conversation's activities (its activity operations are send, reply, update,
// delete and the upload of a transcript; reading a channel's messages takes Microsoft Graph and
// a tenant-wide permission), so the channel implements neither inquiry.PostFinder nor
// inquiry.EscalationFinder. When the bot dies or times out after Teams took a post but before
// its answer came back, the retry posts the card again: the conversation shows it twice, a
// click on either answers, and only the recorded one is updated for everyone.
//
// A question that names who may answer has no link everybody in the conversation may open, so
// its card's "View all" and "Edit on the web" are an Action.Execute (verb page): the click, its
// token verified as every invoke's, gets inquiry.Service.PersonalLink for the clicker's Entra
// object id, and the invoke is answered with the card opening that link, which Teams shows to
// the clicker alone; the message everybody sees is not changed. Whoever may not answer is told
// why in words. A question that names nobody links its page (the general link) directly.
//
// The record keeps who answered and voted by their Entra object id (answered_by, a vote's by).
// Cards show them by name instead: the name their own click's invoke carried (from.name), or
// else the one the conversation's roster gives, kept in memory per conversation and id in a
// bounded LRU for the App's life; the id where neither names them. Nothing is added to the record.
//
// The fake Teams the tests run against is package teamsfake; testdata holds real Bot Framework
// payloads (testdata/README.md says where each comes from).
package teamsapp
