export declare const INPUTS: ReadonlyArray<string>
export declare const OUTPUTS: ReadonlyArray<string>
export declare const STAMP: string
export declare const newestFile: (path: string) => { readonly path: string; readonly mtimeMs: number } | undefined
export declare const staleReason: (root: string) => string | undefined
export declare const beginBuild: (root: string) => void
export declare const finishBuild: (root: string) => void
export declare const ensureBuilt: (root: string) => void
