// Addresses of the public catalogue, in a module of their own: the landing (first bundle) links
// to model pages without pulling in the catalogue's code.

/** The public page of a model: '/models/openai/gpt-4o' (slashes and ':' kept readable). */
export function publicModelHref(id: string): string {
  return `/models/${id
    .split('/')
    .map((part) => encodeURIComponent(part).replace(/%3A/gi, ':'))
    .join('/')}`
}
