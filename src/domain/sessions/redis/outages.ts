// What the Redis store's log says of each kind of outage (docs/operations.md lists the events): the words as it
// begins, the event and words as it ends, and its event.
export type Outage = 'start' | 'lost' | 'hang' | 'refused' | 'old' | 'cluster' | 'replica' | 'failover' | 'switch'
export const DOWN: Record<Outage, string> = {
  start: 'cannot be reached',
  lost: 'is unreachable',
  hang: 'stopped answering',
  refused: 'refuses this service\'s commands',
  old: 'cannot run this service\'s scripts',
  cluster: 'is a Redis Cluster, which this service does not use',
  replica: 'is a replica, not a primary: this service writes to a primary only',
  failover: 'is failing over',
  switch: 'has a new primary'
}
export const UP: Record<Outage, [event: string, text: string]> = {
  start: ['connected', 'connected'],
  lost: ['connected', 'connected again'],
  hang: ['answering', 'answers again'],
  refused: ['accepting', 'accepts commands again'],
  old: ['connected', 'connected'],
  cluster: ['connected', 'connected'],
  replica: ['primary', 'is a primary again'],
  failover: ['accepting', 'accepts commands again: no switch followed'],
  switch: ['connected', 'connected again']
}
/** The log's `event` for each outage (docs/operations.md lists them). */
export const EVENT: Record<Outage, string> = {
  start: 'unreachable',
  lost: 'unreachable',
  hang: 'hanging',
  refused: 'refusing',
  old: 'unfit',
  cluster: 'unfit',
  replica: 'not-primary',
  failover: 'failover',
  switch: 'switch-master'
}
