// Package tokencache keeps what the service read of bearer tokens lately, so that a busy token
// costs a store read a TTL rather than one a request (cmd/benchmark row t measures what it buys).
//
// Its lifecycle:
//
//	fills:    Get on a miss reads the store once, however many requests miss the id at once
//	          (they share the read), and keeps the token, or that no token has the id, for TTL.
//	empties:  an entry older than TTL is read again; a full table (Max) drops the stale entries,
//	          or everything when none is stale; Forget drops the entries a revocation names.
//	revokes:  a revocation through this process calls Forget: the token is refused from the next
//	          request on, a read under way is not kept (it may predate the revocation), and
//	          Revocations' channel is closed, so that whoever holds requests open rechecks them at
//	          once. A revocation on another replica reaches this one within TTL, when the entry
//	          is read again; requests held open recheck every few seconds through Get.
//
// A cache with a TTL of zero keeps nothing: every Get reads the store (the cache off).
package tokencache
