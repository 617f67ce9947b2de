import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as Effect from "effect/Effect"
import { readFile } from "node:fs/promises"
import { extname, join, normalize, sep } from "node:path"

const types: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".map": "application/json"
}

/** The web timeline's built files; unknown paths get index.html (the page routes itself). */
export const staticFiles = (root: string) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const pathname = decodeURIComponent(new URL(request.url, "http://localhost").pathname)
    const wanted = normalize(join(root, pathname === "/" ? "index.html" : pathname))
    const inside = wanted.startsWith(root.endsWith(sep) ? root : root + sep)
    const path = inside && extname(wanted) !== "" ? wanted : join(root, "index.html")
    const body = yield* Effect.tryPromise(() => readFile(path)).pipe(Effect.option)
    if (body._tag === "None") {
      return HttpServerResponse.text(
        path.endsWith("index.html") ? "The web timeline is not built: run `npm run build`." : "not found",
        { status: 404 }
      )
    }
    return HttpServerResponse.uint8Array(body.value, {
      contentType: types[extname(path)] ?? "application/octet-stream",
      headers: { "cache-control": path.endsWith("index.html") ? "no-cache" : "public, max-age=3600", "x-content-type-options": "nosniff" }
    })
  })
