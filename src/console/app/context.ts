import { createContext, useContext } from 'react';
import type { SignedIn } from './auth';
import { type Words, wordsFor } from './i18n';

export const WordsContext = createContext<Words>(wordsFor('en'));
export const UserContext = createContext<SignedIn | undefined>(undefined);
/** The instance's issuer URL (the external URL), as the server's page names it. */
export const IssuerContext = createContext('');

export const useWords = () => useContext(WordsContext);
export const useUser = () => useContext(UserContext)!;
export const useIssuer = () => useContext(IssuerContext);
