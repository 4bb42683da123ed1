import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestApp } from '../helper.ts'
import { cropsApp } from './client.ts'

const ROUTES: Array<[string, string, string]> = [
  ['get', '/api/crops', 'crops'],
  ['post', '/api/crops', 'crops'],
  ['get', '/api/crops/{cropId}', 'crops'],
  ['patch', '/api/crops/{cropId}', 'crops'],
  ['delete', '/api/crops/{cropId}', 'crops'],
  ['get', '/api/crops/{cropId}/complete', 'crops'],
  ['get', '/api/crops/{cropId}/status', 'crops'],
  ['post', '/api/crops/{cropId}/status', 'crops'],
  ['post', '/api/crops/{cropId}/timeline', 'crops'],
  ['get', '/api/crops/{cropId}/plants', 'crops'],
  ['post', '/api/crops/{cropId}/plants', 'crops'],
  ['get', '/api/crops/{cropId}/harvest', 'crops'],
  ['post', '/api/crops/{cropId}/harvest', 'crops'],
  ['patch', '/api/crops/{cropId}/harvest/{harvestId}', 'crops'],
  ['get', '/api/strains', 'catalog'],
  ['post', '/api/strains', 'catalog'],
  ['get', '/api/spaces', 'catalog'],
  ['post', '/api/spaces', 'catalog'],
  ['get', '/api/lights', 'catalog'],
  ['post', '/api/lights', 'catalog'],
]

describe('crops in /openapi.json', () => {
  let t: TestApp
  let doc: any
  beforeAll(async () => {
    t = await cropsApp('memory')
    doc = (await t.app.inject('/openapi.json')).json()
  })
  afterAll(async () => { await t.close() })

  it.each(ROUTES)('%s %s is documented with its tag, inputs and success answer', (method, path, tag) => {
    const op = doc.paths[path]?.[method]
    expect(op, `${method} ${path}`).toBeDefined()
    expect(op.tags).toEqual([tag])
    const success = Object.keys(op.responses).filter((code) => code.startsWith('2'))
    expect(success).toHaveLength(1)
    expect(op.responses[success[0] as string].content['application/json'].schema).toBeDefined()
    if (method === 'post' || method === 'patch') expect(op.requestBody.content['application/json'].schema).toBeDefined()
    if (path.includes('{cropId}')) expect(op.parameters.map((p: { name: string }) => p.name)).toContain('cropId')
  })

  it('documents the flat body of an invalid status move and the list filters', () => {
    const move = doc.paths['/api/crops/{cropId}/status'].post.responses['409'].content['application/json'].schema
    expect(JSON.stringify(move)).toContain('validTransitions')
    const query = doc.paths['/api/crops'].get.parameters.map((p: { name: string }) => p.name)
    expect(query).toEqual(expect.arrayContaining(['status', 'strain', 'spaceId', 'search', 'limit', 'offset']))
  })
})
