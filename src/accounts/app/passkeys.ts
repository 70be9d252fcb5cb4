/**
 * The provider pages' passkey buttons: "Sign in with a passkey" on the sign-in page and "Add a
 * passkey" on `/account`. Each asks the server for a ceremony's options, runs it in the browser
 * (`@simplewebauthn/browser`), sends the answer back, and follows where the server says to go.
 * Without this script the pages still work with names and passwords.
 */
import {
  browserSupportsWebAuthn,
  startAuthentication,
  startRegistration,
} from '@simplewebauthn/browser'

async function post(
  path: string,
  body: Record<string, unknown>,
): Promise<{ ok: boolean; value: Record<string, unknown> }> {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    credentials: 'same-origin',
  })
  const value = (await res.json().catch(() => ({}))) as Record<string, unknown>
  return { ok: res.ok, value }
}

function showError(text: string): void {
  const line = document.getElementById('passkey-error')
  if (!line) return
  line.textContent = text
  line.hidden = false
}

const CANCELLED = 'The passkey was not used. Try again, or use your password.'

async function signIn(button: HTMLButtonElement): Promise<void> {
  const csrf = button.dataset.csrf ?? ''
  const options = await post('/passkeys/signin/options', { csrf })
  if (!options.ok)
    return showError(String(options.value.error ?? 'The passkey sign-in could not start.'))
  let response
  try {
    response = await startAuthentication({ optionsJSON: options.value as never })
  } catch {
    return showError(CANCELLED)
  }
  const done = await post('/passkeys/signin', {
    csrf,
    key: button.dataset.key ?? '',
    return: button.dataset.return ?? '',
    response,
  })
  if (!done.ok) return showError(String(done.value.error ?? 'The passkey sign-in failed.'))
  location.assign(String(done.value.location))
}

async function add(button: HTMLButtonElement): Promise<void> {
  const csrf = button.dataset.csrf ?? ''
  const options = await post('/passkeys/register/options', { csrf })
  if (!options.ok)
    return showError(String(options.value.error ?? 'The passkey could not be added.'))
  let response
  try {
    response = await startRegistration({ optionsJSON: options.value as never })
  } catch {
    return showError('No passkey was added.')
  }
  const done = await post('/passkeys/register', { csrf, response })
  if (!done.ok) return showError(String(done.value.error ?? 'The passkey could not be added.'))
  location.assign(String(done.value.location))
}

function wire(id: string, action: (button: HTMLButtonElement) => Promise<void>): void {
  const button = document.getElementById(id)
  if (!(button instanceof HTMLButtonElement)) return
  if (!browserSupportsWebAuthn()) {
    button.hidden = true
    return
  }
  button.addEventListener('click', () => {
    button.disabled = true
    void action(button).finally(() => (button.disabled = false))
  })
}

wire('passkey-signin', signIn)
wire('passkey-add', add)
