/**
 * The connect page's script (`/connect/<nonce>`): confirms the chosen project through
 * `POST /api/connect/<nonce>/confirm` with the session's tag and sends the browser to the
 * answered `location`, or shows the refusal under the form. Everything it needs comes from the
 * form's attributes (`data-confirm`, `data-tag`), so no value is ever written into script text.
 */
const form = document.getElementById('connect') as HTMLFormElement | null
const out = document.getElementById('connect-error')
const newProject = document.getElementById('connect-new') as HTMLInputElement | null

if (form && out && newProject) {
  const title = form.elements.namedItem('title') as HTMLInputElement
  const go = form.elements.namedItem('go') as HTMLButtonElement
  title.addEventListener('input', () => {
    newProject.checked = true
  })
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    const choice = form.querySelector<HTMLInputElement>('input[name=project]:checked')
    const body = choice && choice.value !== '' ? { project: choice.value } : { title: title.value }
    out.textContent = ''
    go.disabled = true
    try {
      const res = await fetch(form.dataset.confirm ?? '', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-tag': form.dataset.tag ?? '' },
        body: JSON.stringify(body),
      })
      const answer = (await res.json()) as { location?: unknown; error?: unknown }
      if (res.ok && typeof answer.location === 'string')
        return window.location.assign(answer.location)
      out.textContent = typeof answer.error === 'string' ? answer.error : 'could not connect'
    } catch {
      out.textContent = 'could not reach the service: try again'
    }
    go.disabled = false
  })
}
