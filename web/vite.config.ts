import { defineConfig } from "vite"

/**
 * The web timeline, built into the server's static files (`dist/web`). Build with
 * `vite build web` from the repository root; paths here are relative to web/.
 */
export default defineConfig({
  base: "/",
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  build: {
    outDir: "../dist/web",
    emptyOutDir: true,
    target: "es2022",
    rollupOptions: {
      // The Markdown libraries change less often than the page: a chunk of their own stays cached.
      output: { manualChunks: (id) => (/node_modules\/(marked|dompurify|highlight\.js)\//.test(id) ? "markdown" : undefined) }
    }
  }
})
