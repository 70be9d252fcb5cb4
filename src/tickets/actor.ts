/** Who makes a change, and when: the one record every domain function of the API is handed. */
import type { User } from './store/users.ts'

export interface Actor {
  /** The person acting (for a connected app's key, the person who confirmed it). */
  user: User
  /** The label of the connected app acting for `user`; null when the person acts. */
  app: string | null
  /** The time of the change, milliseconds since the epoch. */
  now: number
}
