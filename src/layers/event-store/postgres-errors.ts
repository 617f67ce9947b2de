import { Migrator, SqlError } from "@effect/sql"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/**
 * @effect/sql raises some driver failures as defects: a failed COMMIT or ROLLBACK in
 * `withTransaction`, and a failed migration in the Migrator. A store's failures are typed,
 * so these come back as failures (with the driver's error as their cause); other defects stay
 * defects.
 */
export const driverDefectsAsFailures = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | SqlError.SqlError | Migrator.MigrationError, R> =>
  Effect.catchSomeDefect(effect, (defect) =>
    defect instanceof SqlError.SqlError || defect instanceof Migrator.MigrationError
      ? Option.some(Effect.fail(defect))
      : Option.none()
  )

/** The SQLSTATE code of the driver's error under an @effect/sql SqlError, if there is one. */
const sqlStateOf = (error: unknown): unknown =>
  error instanceof SqlError.SqlError && typeof error.cause === "object" && error.cause !== null && "code" in error.cause
    ? error.cause.code
    : undefined

/** Postgres's unique_violation: in an append, the primary key refusing a sequence someone else wrote first. */
export const isUniqueViolation = (error: unknown): boolean => sqlStateOf(error) === "23505"

/** Postgres's undefined_table: a query on a table no migration has created (yet). */
export const isUndefinedTable = (error: unknown): boolean => sqlStateOf(error) === "42P01"
