import { create } from 'zustand'
import { createJSONStorage, persist } from 'zustand/middleware'

/**
 * The account the app acts in: the personal one (null) or a team. Every /api call carries it as
 * X-Team-Id (lib/api.ts), and /v1 calls of the Playground too; the choice survives reloads.
 */
export interface AccountState {
  teamId: string | null
  setTeam: (teamId: string | null) => void
}

export const ACCOUNT_STORAGE_KEY = 'account-context'

export const useAccountContext = create<AccountState>()(
  persist(
    (set) => ({
      teamId: null,
      setTeam: (teamId) => set({ teamId }),
    }),
    { name: ACCOUNT_STORAGE_KEY, version: 0, storage: createJSONStorage(() => localStorage), partialize: ({ teamId }) => ({ teamId }) },
  ),
)

/** The current team id outside React (the API client). */
export const currentTeamId = (): string | null => useAccountContext.getState().teamId
