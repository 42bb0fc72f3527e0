/** Sign-in: username and password; wrong credentials, lockout and expiry explained in words. */
import { useRef, useState } from 'preact/hooks';
import { ApiError, signIn } from '../lib/api.ts';
import { errorMessage, useDocumentTitle } from '../lib/page.ts';
import { serviceName } from '../lib/service.ts';

export function SignInPage({ notice }: { notice: string | null }) {
  useDocumentTitle('Sign in');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const passwordRef = useRef<HTMLInputElement>(null);

  async function submit(event: Event) {
    event.preventDefault();
    if (!username.trim() || !password) {
      setError('Enter your username and password.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await signIn(username.trim(), password);
    } catch (caught) {
      setBusy(false);
      if (caught instanceof ApiError && caught.status === 401) {
        setError('Wrong username or password.');
        setPassword('');
        passwordRef.current?.focus();
      } else if (caught instanceof ApiError && caught.status === 429) {
        setError('Too many failed sign-ins. This account is locked for a minute; please wait and try again.');
      } else {
        setError(errorMessage(caught));
      }
    }
  }

  return (
    <div class="center-page">
      <main class="card narrow sign-in">
        <h1>{serviceName()}</h1>
        <p class="muted">Sign in to work with your records.</p>
        {notice && !error && (
          <p class="alert alert-info" role="status">
            {notice}
          </p>
        )}
        {error && (
          <p class="alert alert-error" role="alert">
            {error}
          </p>
        )}
        <form onSubmit={submit} noValidate>
          <div class="field">
            <label for="username">Username</label>
            <input id="username" name="username" type="text" autoComplete="username" autoCapitalize="none" spellcheck={false} value={username} onInput={(event) => setUsername(event.currentTarget.value)} autoFocus />
          </div>
          <div class="field">
            <label for="password">Password</label>
            <input id="password" name="password" type="password" autoComplete="current-password" ref={passwordRef} value={password} onInput={(event) => setPassword(event.currentTarget.value)} />
          </div>
          <button type="submit" class="btn btn-primary btn-block" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
      </main>
    </div>
  );
}
