// Package dispatch carries out the service's durable deliveries: a Dispatcher claims due ones
// from the store with a lease, runs each lane's deliveries in order through the handlers it is
// given (inquiry.Service.TransportHandlers, the gateway's callbacks), and records each outcome.
//
// The service never sees it: it is handed Dispatcher.Kick as Service.Kick, to say that work was
// enqueued, and the sweeper calls Drain for what nobody kicked. Lifecycle: Run claims on a kick,
// on a lane's end and on every Poll; each lane runs in a goroutine of its own, bounded per class
// of work (MaxLanes); when Run's context ends it waits for its lanes, which record their outcomes
// even then. A dispatcher that dies loses nothing: its leases run out and the work is claimed
// again.
package dispatch
