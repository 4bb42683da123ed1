import { existsSync, readdirSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { run, type Step } from './steps.ts'

const PG_LIB = '/usr/lib/postgresql'
// A throwaway role on a loopback-only cluster; a fixed password keeps concurrent runs from resetting each other's.
const ROLE = 'club_medusa'
const ROLE_PASSWORD = 'club_medusa'

export interface Database {
  name: string
  port: number
  url: string
}

interface Cluster {
  version: string
  name: string
  port: number
  online: boolean
}

function installedVersions (): string[] {
  if (!existsSync(PG_LIB)) return []
  return readdirSync(PG_LIB)
    .filter((version) => existsSync(`${PG_LIB}/${version}/bin/postgres`))
    .sort((a, b) => Number(b) - Number(a))
}

async function installPostgres (step: Step): Promise<void> {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  await run(step, 'apt-get', ['update'], { env })
  await run(step, 'apt-get', ['install', '-y', 'postgresql'], { env })
}

async function listClusters (step: Step): Promise<Cluster[]> {
  const out = await run(step, 'pg_lsclusters', ['--no-header'])
  return out.split('\n').filter(Boolean).map((line) => {
    const [version = '', name = '', port = '', status = ''] = line.trim().split(/\s+/)
    return { version, name, port: Number(port), online: status.startsWith('online') }
  })
}

async function ensureCluster (step: Step): Promise<Cluster> {
  const [version] = installedVersions()
  if (!version) throw new Error(`no PostgreSQL server found under ${PG_LIB}`)
  let [cluster] = await listClusters(step)
  if (!cluster) {
    await run(step, 'pg_createcluster', [version, 'main'])
    ;[cluster] = await listClusters(step)
    if (!cluster) throw new Error('pg_createcluster made no cluster')
  }
  if (!cluster.online) await run(step, 'pg_ctlcluster', [cluster.version, cluster.name, 'start'])
  return cluster
}

function psql (step: Step, port: number, sql: string): Promise<string> {
  return run(step, 'runuser', ['-u', 'postgres', '--', 'psql', '-p', String(port), '-v', 'ON_ERROR_STOP=1', '-tAc', sql])
}

/** Installs PostgreSQL when missing, starts its cluster and creates a fresh database owned by a password role. */
export async function createDatabase (step: Step): Promise<Database> {
  if (installedVersions().length === 0) await installPostgres(step)
  const { port } = await ensureCluster(step)
  await psql(step, port, `DO $$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${ROLE}') THEN CREATE ROLE ${ROLE} LOGIN; END IF;
    ALTER ROLE ${ROLE} PASSWORD '${ROLE_PASSWORD}';
  END $$`)
  const name = `medusa_run_${Date.now()}_${randomBytes(3).toString('hex')}`
  await psql(step, port, `CREATE DATABASE ${name} OWNER ${ROLE}`)
  return { name, port, url: `postgres://${ROLE}:${ROLE_PASSWORD}@127.0.0.1:${port}/${name}` }
}

export async function dropDatabase (step: Step, db: Database): Promise<void> {
  await psql(step, db.port, `DROP DATABASE IF EXISTS ${db.name} WITH (FORCE)`)
}
