/** What the upstream clients call to send a request: fetch's shape (http1.ts's own client, fetch, a test's stub). */
export type FetchLike = (url: string, init?: RequestInit) => Promise<Response>
