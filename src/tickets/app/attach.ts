/**
 * Attaching files to a text (docs/tickets-app.md, "Attaching files"): a file dragged onto a text
 * box, an image pasted into it, or files chosen with **Attach files** are uploaded to the
 * project's files (`POST /api/projects/<slug>/files`), each with a progress bar and a Cancel;
 * when one is done its Markdown link goes in at the cursor. A file that fails says why in the
 * list and leaves the text as it was.
 *
 * The text box's field is marked by the server (`data-attach-to`, `data-attach-api`,
 * `data-attach-max`, src/tickets/pages/frame.ts); {@link startAttaching} listens on the document,
 * so boxes a redraw brings are served too. {@link insertLink} and {@link refusalOf} are plain
 * functions, tested in Node.
 */
import { readable, SIGNED_OUT } from './api.ts'
import { formatSize } from '../rules/files.ts'
import { fileOverLimit, UPLOAD_UNREACHABLE } from '../text/page-words.ts'

/** Where a link goes into a text, and where the cursor is after it. */
export function insertLink(
  text: string,
  start: number,
  end: number,
  markdown: string,
  image: boolean,
): { text: string; cursor: number } {
  const before = text.slice(0, start)
  const after = text.slice(end)
  // An image stands on a line of its own; a link to a file reads inside a sentence.
  const lead =
    before === '' || (image ? before.endsWith('\n') : /\s$/.test(before)) ? '' : image ? '\n' : ' '
  const tail = image
    ? after.startsWith('\n')
      ? ''
      : '\n'
    : after === '' || /^\s/.test(after)
      ? ''
      : ' '
  const inserted = lead + markdown + tail
  return { text: before + inserted + after, cursor: before.length + inserted.length }
}

/**
 * Why the file was not attached, in words, from the upload's answer: its status (0: no answer
 * came), its refusal's code (`x-error-code`) and its body.
 */
export function refusalOf(status: number, code: string | null, body: unknown): string {
  if (status === 0) return UPLOAD_UNREACHABLE
  if (status === 401) return SIGNED_OUT
  const record =
    body !== null && typeof body === 'object' ? (body as { error?: unknown; field?: unknown }) : {}
  const field = typeof record.field === 'string' ? record.field : null
  return typeof record.error === 'string'
    ? readable(code, record.error, field)
    : `The server answered ${status}, so the file was not attached. Try again.`
}

/** The refusal for a file larger than the limit, before sending it. */
export function tooLarge(name: string, size: number, maxMb: number): string {
  return fileOverLimit(name, formatSize(size), maxMb)
}

interface Uploaded {
  markdown: string
  type: string
}

/** Sends one file; XMLHttpRequest, since fetch tells nothing of an upload's progress. */
function send(
  url: string,
  file: File,
  tag: string,
  onProgress: (loaded: number) => void,
  signal: AbortSignal,
): Promise<{ ok: true; file: Uploaded } | { ok: false; error: string } | null> {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest()
    xhr.open('POST', `${url}?name=${encodeURIComponent(file.name || 'pasted')}`)
    xhr.setRequestHeader('x-tag', tag)
    xhr.setRequestHeader('content-type', file.type || 'application/octet-stream')
    xhr.responseType = 'json'
    xhr.upload.onprogress = (event) => onProgress(event.loaded)
    xhr.onload = () => {
      const body = xhr.response as { file?: Uploaded } | null
      if (xhr.status === 201 && body?.file) resolve({ ok: true, file: body.file })
      else
        resolve({
          ok: false,
          error: refusalOf(xhr.status, xhr.getResponseHeader('x-error-code'), body),
        })
    }
    xhr.onerror = () => resolve({ ok: false, error: refusalOf(0, null, null) })
    xhr.onabort = () => resolve(null)
    signal.addEventListener('abort', () => xhr.abort(), { once: true })
    xhr.send(file)
  })
}

/** A pasted image has a generic name (`image.png`); it is named by the time it was pasted. */
function named(file: File, pasted: boolean): File {
  if (!pasted) return file
  const ext = file.type.split('/')[1]?.replace('jpeg', 'jpg') ?? 'png'
  const stamp = new Date().toISOString().slice(0, 19).replace('T', ' ').replaceAll(':', '.')
  return new File([file], `pasted ${stamp}.${ext}`, { type: file.type })
}

/** Uploads `files` for the text box of `field`, each with its line in the list of uploads. */
function attach(field: HTMLElement, files: readonly File[], tag: string, pasted = false): void {
  const box = document.getElementById(field.dataset.attachTo ?? '')
  const list = field.querySelector<HTMLUListElement>('[data-uploads]')
  if (!(box instanceof HTMLTextAreaElement) || !list) return
  const url = field.dataset.attachApi!
  const maxMb = Number(field.dataset.attachMax)
  for (const original of files) {
    const file = named(original, pasted)
    const item = document.createElement('li')
    const name = document.createElement('span')
    name.className = 'upload-name'
    name.textContent = file.name
    item.append(name)
    list.append(item)
    if (file.size > maxMb * 1024 * 1024) {
      failed(item, tooLarge(file.name, file.size, maxMb))
      continue
    }
    const bar = document.createElement('progress')
    bar.max = Math.max(file.size, 1)
    bar.value = 0
    bar.setAttribute('aria-label', `Uploading ${file.name}`)
    const cancel = document.createElement('button')
    cancel.type = 'button'
    cancel.className = 'link'
    cancel.textContent = 'Cancel'
    cancel.setAttribute('aria-label', `Cancel uploading ${file.name}`)
    const stop = new AbortController()
    cancel.addEventListener('click', () => stop.abort())
    item.dataset.uploading = ''
    item.append(bar, cancel)
    void send(url, file, tag, (loaded) => (bar.value = loaded), stop.signal).then((answer) => {
      delete item.dataset.uploading
      if (answer === null) {
        item.remove()
        return
      }
      if (!answer.ok) {
        bar.remove()
        cancel.remove()
        failed(item, answer.error)
        return
      }
      item.remove()
      const at = insertLink(
        box.value,
        box.selectionStart,
        box.selectionEnd,
        answer.file.markdown,
        answer.file.markdown.startsWith('!'),
      )
      box.value = at.text
      box.setSelectionRange(at.cursor, at.cursor)
      // What listens for typing (the length check) hears of it.
      box.dispatchEvent(new Event('input', { bubbles: true }))
    })
  }
}

/** The line of a file that was not attached: why, and a button that takes the line away. */
function failed(item: HTMLLIElement, why: string): void {
  item.classList.add('upload-failed')
  const text = document.createElement('span')
  text.setAttribute('role', 'alert')
  text.textContent = why
  const dismiss = document.createElement('button')
  dismiss.type = 'button'
  dismiss.className = 'link'
  dismiss.textContent = 'Dismiss'
  dismiss.addEventListener('click', () => item.remove())
  item.append(text, dismiss)
}

/** True while any file of `form` is still uploading. */
export function uploading(form: HTMLFormElement): boolean {
  return form.querySelector('[data-uploading]') !== null
}

/** Empties the lists of uploads of `form` (after it was sent). */
export function clearUploads(form: HTMLFormElement): void {
  for (const list of Array.from(form.querySelectorAll('[data-uploads]'))) list.replaceChildren()
}

/** Listens on the document for files dropped, pasted or chosen for a text box that takes them. */
export function startAttaching(tag: string): void {
  const fieldOf = (target: EventTarget | null) =>
    target instanceof Element ? target.closest<HTMLElement>('[data-attach-to]') : null
  const hasFiles = (data: DataTransfer | null) =>
    data !== null && Array.from(data.types).includes('Files')

  document.addEventListener('dragover', (event) => {
    const field = fieldOf(event.target)
    if (!field || !hasFiles(event.dataTransfer)) return
    event.preventDefault()
    event.dataTransfer!.dropEffect = 'copy'
    field.classList.add('dropping')
  })
  document.addEventListener('dragleave', (event) => {
    const field = fieldOf(event.target)
    if (field && !(event.relatedTarget instanceof Node && field.contains(event.relatedTarget)))
      field.classList.remove('dropping')
  })
  document.addEventListener('drop', (event) => {
    const field = fieldOf(event.target)
    if (!field || !hasFiles(event.dataTransfer)) return
    event.preventDefault()
    field.classList.remove('dropping')
    attach(field, Array.from(event.dataTransfer!.files), tag)
  })
  document.addEventListener('paste', (event) => {
    const field = fieldOf(event.target)
    const files = Array.from(event.clipboardData?.files ?? [])
    // Only files: pasted text goes in as text, as always.
    if (!field || files.length === 0) return
    event.preventDefault()
    attach(field, files, tag, true)
  })
  document.addEventListener('click', (event) => {
    const button =
      event.target instanceof Element
        ? event.target.closest<HTMLButtonElement>('[data-attach-button]')
        : null
    if (!button) return
    button
      .closest('[data-attach-to]')
      ?.querySelector<HTMLInputElement>('[data-attach-input]')
      ?.click()
  })
  document.addEventListener('change', (event) => {
    const input = event.target
    if (!(input instanceof HTMLInputElement) || input.dataset.attachInput === undefined) return
    const field = fieldOf(input)
    if (field && input.files) attach(field, Array.from(input.files), tag)
    input.value = ''
  })
}
