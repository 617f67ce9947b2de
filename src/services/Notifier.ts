import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/** A notice for the person at the machine: a title and one line of text, both plain (shown, never interpreted). */
export interface Notice {
  readonly title: string
  readonly body: string
}

/**
 * Tells the person something needs them while no terminal shows it (a desktop notification).
 * Never fails and never waits for the notice to be shown: a machine without a notification
 * service simply shows nothing.
 */
export interface NotifierShape {
  readonly notify: (notice: Notice) => Effect.Effect<void>
}

export class Notifier extends Context.Tag("custom-agent/Notifier")<Notifier, NotifierShape>() {}
