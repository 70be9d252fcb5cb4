/**
 * The labels aggregate: a project's `labels` and which tickets have them (`ticket_labels`), the
 * {@link Label} the API shows. A name is unique in its project whatever its case (the index
 * `labels_name`); the writes of one project's labels take {@link lockLabels} first, so a rename
 * and a create of the same name wait for each other instead of one failing on the index.
 */
import type { Query } from '../../db/client.ts'

/** A label as the API shows it. */
export interface Label {
  name: string
  /** `#rrggbb`, lower case. */
  color: string
  description: string
}

/** A label with the id the store knows it by. */
export interface StoredLabel extends Label {
  id: string
}

interface LabelRow {
  id: string
  name: string
  color: string
  description: string
}

const labelOf = (r: LabelRow): StoredLabel => ({
  id: String(r.id),
  name: r.name,
  color: r.color,
  description: r.description,
})

/** The project's labels, in name order (any case). */
async function labelsOf(q: Query, projectId: string): Promise<StoredLabel[]> {
  const rows = await q<LabelRow[]>`
    select id::text as id, name, color, description from labels
    where project_id = ${projectId} order by lower(name), name`
  return rows.map(labelOf)
}

/** The project's label of `name`, any case; null when it has none. */
async function labelByName(q: Query, projectId: string, name: string): Promise<StoredLabel | null> {
  const [row] = await q<LabelRow[]>`
    select id::text as id, name, color, description from labels
    where project_id = ${projectId} and lower(name) = lower(${name})`
  return row ? labelOf(row) : null
}

/** Holds the project's label writes until the transaction ends. */
async function lockLabels(q: Query, projectId: string): Promise<void> {
  await q`select pg_advisory_xact_lock(4711045, hashtext(${projectId}))`
}

/** Adds a label; the caller checked the name is free under {@link lockLabels}. */
async function insertLabel(
  q: Query,
  projectId: string,
  label: Label,
  now: number,
): Promise<StoredLabel> {
  const [row] = await q<LabelRow[]>`
    insert into labels (project_id, name, color, description, created)
    values (${projectId}, ${label.name}, ${label.color}, ${label.description}, ${now})
    returning id::text as id, name, color, description`
  return labelOf(row!)
}

/** Changes a label's name, colour or description. */
async function updateLabel(q: Query, id: string, label: Label): Promise<StoredLabel> {
  const [row] = await q<LabelRow[]>`
    update labels set name = ${label.name}, color = ${label.color}, description = ${label.description}
    where id = ${id}
    returning id::text as id, name, color, description`
  return labelOf(row!)
}

/** Deletes a label, taking it off every ticket; answers the ids of those tickets. */
async function deleteLabel(q: Query, id: string): Promise<string[]> {
  const rows = await q<{ ticket_id: string }[]>`
    select ticket_id from ticket_labels where label_id = ${id}`
  await q`delete from labels where id = ${id}`
  return rows.map((r) => r.ticket_id)
}

/** Gives a ticket a label; false when it had it already. */
async function addToTicket(q: Query, ticketId: string, labelId: string): Promise<boolean> {
  const rows = await q`
    insert into ticket_labels (ticket_id, label_id) values (${ticketId}, ${labelId})
    on conflict do nothing returning ticket_id`
  return rows.length > 0
}

/** Takes a label off a ticket; false when it did not have it. */
async function removeFromTicket(q: Query, ticketId: string, labelId: string): Promise<boolean> {
  const rows = await q`
    delete from ticket_labels where ticket_id = ${ticketId} and label_id = ${labelId}
    returning ticket_id`
  return rows.length > 0
}

/** The labels table on `q`. */
export function labelTable(q: Query) {
  return {
    of: (projectId: string) => labelsOf(q, projectId),
    byName: (projectId: string, name: string) => labelByName(q, projectId, name),
    lock: (projectId: string) => lockLabels(q, projectId),
    insert: (projectId: string, label: Label, now: number) => insertLabel(q, projectId, label, now),
    update: (id: string, label: Label) => updateLabel(q, id, label),
    remove: (id: string) => deleteLabel(q, id),
    addToTicket: (ticketId: string, labelId: string) => addToTicket(q, ticketId, labelId),
    removeFromTicket: (ticketId: string, labelId: string) => removeFromTicket(q, ticketId, labelId),
  }
}
