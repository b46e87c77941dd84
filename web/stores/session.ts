import { create } from 'zustand'
import { createJSONStorage, persist } from 'zustand/middleware'
import type { AuthResult as WireAuthResult, User as WireUser } from '../../src/wire'

/**
 * The account as the server describes it (GET /api/auth/profile, login, register: src/wire.ts).
 * emailVerified may be absent in a session stored in the browser before the field existed.
 */
export type User = Omit<WireUser, 'emailVerified'> & Partial<Pick<WireUser, 'emailVerified'>>

export type AuthResult = WireAuthResult

export interface SessionData {
  user: User | null
  accessToken: string | null
  refreshToken: string | null
  isAuthenticated: boolean
}

export interface SessionActions {
  /** Signed in: stores the user and both tokens. */
  setAuth: (auth: AuthResult) => void
  /** A renewed token pair. */
  setTokens: (accessToken: string, refreshToken: string) => void
  /** Replaces only the user. */
  setUser: (user: User) => void
  /** Replaces the current user's balance; no-op when signed out. */
  updateBalance: (balance: number) => void
  /** Removes both tokens and returns to the signed-out state. */
  logout: () => void
}

export type SessionState = SessionData & SessionActions

export const SESSION_STORAGE_KEY = 'auth-storage'
export const ACCESS_TOKEN_KEY = 'accessToken'
export const REFRESH_TOKEN_KEY = 'refreshToken'

const signedOut: SessionData = {
  user: null,
  accessToken: null,
  refreshToken: null,
  isAuthenticated: false,
}

// The spec keeps both tokens under their own localStorage names as well as inside the
// persisted session; storage may be unavailable (private mode, quota), which must not break sign-in.
function writeTokens(accessToken: string, refreshToken: string): void {
  try {
    localStorage.setItem(ACCESS_TOKEN_KEY, accessToken)
    localStorage.setItem(REFRESH_TOKEN_KEY, refreshToken)
  } catch {
    /* storage unavailable: the in-memory session still works */
  }
}

function removeTokens(): void {
  try {
    localStorage.removeItem(ACCESS_TOKEN_KEY)
    localStorage.removeItem(REFRESH_TOKEN_KEY)
  } catch {
    /* storage unavailable */
  }
}

export const useSession = create<SessionState>()(
  persist(
    (set) => ({
      ...signedOut,
      setAuth: ({ user, accessToken, refreshToken }) => {
        writeTokens(accessToken, refreshToken)
        set({ user, accessToken, refreshToken, isAuthenticated: true })
      },
      setTokens: (accessToken, refreshToken) => {
        writeTokens(accessToken, refreshToken)
        set({ accessToken, refreshToken })
      },
      setUser: (user) => set({ user }),
      updateBalance: (balance) => set((state) => (state.user ? { user: { ...state.user, balance } } : {})),
      logout: () => {
        removeTokens()
        set({ ...signedOut })
      },
    }),
    {
      name: SESSION_STORAGE_KEY,
      version: 0,
      storage: createJSONStorage(() => localStorage),
      partialize: ({ user, accessToken, refreshToken, isAuthenticated }): SessionData => ({
        user,
        accessToken,
        refreshToken,
        isAuthenticated,
      }),
    },
  ),
)

/** Current state outside React (API client, event handlers). */
export const getSession = (): SessionState => useSession.getState()

// Another tab may sign in, sign out or rotate the refresh token; adopt its session so this tab
// never presents a refresh token that has already been used (the server would revoke the family).
if (typeof window !== 'undefined') {
  window.addEventListener('storage', (event) => {
    if (event.key === SESSION_STORAGE_KEY || event.key === null) {
      void useSession.persist.rehydrate()
    }
  })
}
