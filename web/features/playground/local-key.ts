// Keys for what is on screen before the server has it: a message not saved yet (a saved one is
// keyed by its id), a file in the composer.
const LOCAL = 'local-'
let keySeq = 0

export const localKey = () => `${LOCAL}${Date.now().toString(36)}-${++keySeq}`

/** Whether `key` was made here (so the saved chat knows it only once it is saved), not a saved message's id. */
export const isLocalKey = (key: string) => key.startsWith(LOCAL)
