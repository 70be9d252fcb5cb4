/** Who makes a change, and when: the one record the API hands every domain function. */

export interface Actor {
  /** The person acting, as the users store knows them (for a connected app's key, the person who confirmed it). */
  user: { id: string; name: string }
  /** The label of the connected app acting for `user`; null when the person acts. */
  app: string | null
  /** The time of the change, milliseconds since the epoch. */
  now: number
}
