/* Hand-written OpenCL kernels of the peers' benchmark set, which
 * bench/peer_bench.c times against the dpia samples: each is the
 * well-known kernel of its suite (AMD APP SDK, SHOC, PolyBench/GPU,
 * Rodinia, Parboil), named with its suite, file and function,
 * written carefully (private accumulators, no needless global traffic),
 * with the one change that its output is the layout the dpia kernel
 * writes, so that both are checked against one reference.  The first
 * argument is the output. */

/* ---- N-body (AMD APP SDK NBody, nbody_sim) ----
 * Bodies are float4: .xyz the position, .w the mass.  out holds one
 * (newPos, newVel) pair per body (samples/nbody.dpia's output), where
 * nbody_sim writes two buffers.  nbody_sim's acc.w collects
 * (m_j - m_i) * s, which reaches only the velocity's unused .w; that lane
 * is kept, as the position's .w is. */

/* AMD APP SDK 2.x: tiles of the local size copied to local memory, each
 * work-item then reading the whole tile (local size = localPos's length) */
kernel void nbody_sim(global float4 *restrict out, const global float4 *restrict pos,
                      const global float4 *restrict vel, int numBodies, float deltaTime, float epsSqr,
                      local float4 *localPos) {
  int tid = get_local_id(0), gid = get_global_id(0), localSize = get_local_size(0);
  int numTiles = numBodies / localSize;
  float4 myPos = pos[gid];
  float4 acc = (float4)(0.0f);
  for (int i = 0; i < numTiles; ++i) {
    localPos[tid] = pos[i * localSize + tid];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = 0; j < localSize; ++j) {
      float4 r = localPos[j] - myPos;
      float distSqr = r.x * r.x + r.y * r.y + r.z * r.z;
      float invDist = rsqrt(distSqr + epsSqr);
      float invDistCube = invDist * invDist * invDist;
      float s = localPos[j].w * invDistCube;
      acc += s * r;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  float4 oldVel = vel[gid];
  float4 newPos = myPos + oldVel * deltaTime + acc * 0.5f * deltaTime * deltaTime;
  newPos.w = myPos.w;
  float4 newVel = oldVel + acc * deltaTime;
  newVel.w = oldVel.w;
  out[2 * gid] = newPos;
  out[2 * gid + 1] = newVel;
}

/* AMD APP SDK 3.0: no local memory (the caches hold the bodies), the loop
 * over the bodies in global memory unrolled 8 times, only .xyz computed */
#define UNROLL_FACTOR 8
kernel void nbody_sim_unrolled(global float4 *restrict out, const global float4 *restrict pos,
                               const global float4 *restrict vel, int numBodies, float deltaTime, float epsSqr) {
  int gid = get_global_id(0);
  float4 myPos = pos[gid];
  float4 acc = (float4)(0.0f);
  int i = 0;
  for (; i + UNROLL_FACTOR <= numBodies;) {
#pragma unroll UNROLL_FACTOR
    for (int j = 0; j < UNROLL_FACTOR; j++, i++) {
      float4 p = pos[i];
      float4 r;
      r.xyz = p.xyz - myPos.xyz;
      float distSqr = r.x * r.x + r.y * r.y + r.z * r.z;
      float invDist = rsqrt(distSqr + epsSqr);
      float invDistCube = invDist * invDist * invDist;
      float s = p.w * invDistCube;
      acc.xyz += s * r.xyz;
    }
  }
  for (; i < numBodies; i++) {
    float4 p = pos[i];
    float4 r;
    r.xyz = p.xyz - myPos.xyz;
    float distSqr = r.x * r.x + r.y * r.y + r.z * r.z;
    float invDist = rsqrt(distSqr + epsSqr);
    float s = p.w * invDist * invDist * invDist;
    acc.xyz += s * r.xyz;
  }
  float4 oldVel = vel[gid];
  float4 newPos, newVel;
  newPos.xyz = myPos.xyz + oldVel.xyz * deltaTime + acc.xyz * 0.5f * deltaTime * deltaTime;
  newPos.w = myPos.w;
  newVel.xyz = oldVel.xyz + acc.xyz * deltaTime;
  newVel.w = oldVel.w;
  out[2 * gid] = newPos;
  out[2 * gid + 1] = newVel;
}

/* nbody_vec: nbody_sim as one would write it for a CPU device, where a
 * work-item's loop runs in one SIMD lane unless it says otherwise: each
 * work-item takes eight bodies, their coordinates in three float8 (x, y,
 * z: structure of arrays), so that one pass of the loop computes eight
 * interactions, the reciprocal square root among them (global size
 * numBodies / 8; numBodies % 8 == 0). */
kernel void nbody_vec(global float4 *restrict out, const global float4 *restrict pos,
                      const global float4 *restrict vel, int numBodies, float deltaTime, float epsSqr) {
  int gid = get_global_id(0);
  const global float4 *mine = pos + 8 * gid;
  float8 px, py, pz;
  float *lx = (float *)&px, *ly = (float *)&py, *lz = (float *)&pz;
  for (int k = 0; k < 8; k++) {
    lx[k] = mine[k].x;
    ly[k] = mine[k].y;
    lz[k] = mine[k].z;
  }
  float8 ax = (float8)(0.0f), ay = (float8)(0.0f), az = (float8)(0.0f);
  for (int i = 0; i < numBodies; i++) {
    float4 q = pos[i];
    float8 rx = q.x - px, ry = q.y - py, rz = q.z - pz;
    float8 invDist = rsqrt(rx * rx + ry * ry + rz * rz + epsSqr);
    float8 s = q.w * invDist * invDist * invDist;
    ax += s * rx;
    ay += s * ry;
    az += s * rz;
  }
  float *sx = (float *)&ax, *sy = (float *)&ay, *sz = (float *)&az;
  for (int k = 0; k < 8; k++) {
    int b = 8 * gid + k;
    float4 myPos = pos[b], oldVel = vel[b], acc = (float4)(sx[k], sy[k], sz[k], 0.0f);
    float4 newPos = myPos + oldVel * deltaTime + acc * 0.5f * deltaTime * deltaTime;
    newPos.w = myPos.w;
    out[2 * b] = newPos;
    out[2 * b + 1] = oldVel + acc * deltaTime;
  }
}

/* ---- molecular dynamics (SHOC MD, compute_lj_force) ----
 * One work-item per atom; the neighbour list is [neighCount][inum]
 * (neighbour j of every atom together).  SHOC's lists never hold the atom
 * itself (nor do the benchmark's), so r2 > 0 needs no test. */
kernel void compute_lj_force(global float4 *restrict force, const global float4 *restrict position,
                             const global int *restrict neighList, int neighCount, float cutsq, float lj1,
                             float lj2, int inum) {
  int idx = get_global_id(0);
  float4 ipos = position[idx];
  float4 f = (float4)(0.0f);
  for (int j = 0; j < neighCount; j++) {
    int jidx = neighList[j * inum + idx];
    float4 jpos = position[jidx];
    float delx = ipos.x - jpos.x;
    float dely = ipos.y - jpos.y;
    float delz = ipos.z - jpos.z;
    float r2inv = delx * delx + dely * dely + delz * delz;
    if (r2inv < cutsq) {
      r2inv = 1.0f / r2inv;
      float r6inv = r2inv * r2inv * r2inv;
      float forceC = r2inv * r6inv * (lj1 * r6inv - lj2);
      f.x += delx * forceC;
      f.y += dely * forceC;
      f.z += delz * forceC;
    }
  }
  force[idx] = f;
}

/* ---- 2D convolution: 3 x 3 Gaussian blur, clamped edges ----
 * The convolution of the AMD APP SDK's SimpleConvolution and of Lift's
 * stencil set with its mask a compile-time constant: one work-item per
 * pixel, the nine taps written out, the clamped rows and columns computed
 * once.  img is [m][n]. */
constant float gauss3x3[3][3] = {{0.0625f, 0.125f, 0.0625f}, {0.125f, 0.25f, 0.125f}, {0.0625f, 0.125f, 0.0625f}};

kernel void gaussian3x3(global float *restrict out, const global float *restrict img, int m, int n) {
  int j = get_global_id(0), i = get_global_id(1);
  const global float *up = img + max(i - 1, 0) * n, *row = img + i * n, *down = img + min(i + 1, m - 1) * n;
  int l = max(j - 1, 0), r = min(j + 1, n - 1);
  out[i * n + j] = gauss3x3[0][0] * up[l] + gauss3x3[0][1] * up[j] + gauss3x3[0][2] * up[r] +
                   gauss3x3[1][0] * row[l] + gauss3x3[1][1] * row[j] + gauss3x3[1][2] * row[r] +
                   gauss3x3[2][0] * down[l] + gauss3x3[2][1] * down[j] + gauss3x3[2][2] * down[r];
}

/* ---- PolyBench/GPU ---- */

/* gesummv_kernel: y = alpha A x + beta B x, one work-item per row; the two
 * sums in registers, where PolyBench/GPU adds into tmp[i] and y[i] in
 * global memory */
kernel void gesummv(global float *restrict y, const global float *restrict a, const global float *restrict b,
                    const global float *restrict x, float alpha, float beta, int n) {
  int i = get_global_id(0);
  const global float *ra = a + (size_t)i * n, *rb = b + (size_t)i * n;
  float tmp = 0.0f, yi = 0.0f;
  for (int j = 0; j < n; j++) {
    tmp += ra[j] * x[j];
    yi += rb[j] * x[j];
  }
  y[i] = alpha * tmp + beta * yi;
}

/* gesummv_vec: gesummv_kernel as one would write it for a CPU device,
 * where a work-item's loop runs in one SIMD lane unless it says otherwise:
 * eight partial sums in a float8 (eight independent chains of FMAs in
 * place of one, whose latency bounds the scalar loop), added at the end.
 * n % 8 == 0. */
kernel void gesummv_vec(global float *restrict y, const global float *restrict a, const global float *restrict b,
                        const global float *restrict x, float alpha, float beta, int n) {
  int i = get_global_id(0);
  const global float *ra = a + (size_t)i * n, *rb = b + (size_t)i * n;
  float8 tmp = (float8)(0.0f), yi = (float8)(0.0f);
  for (int j = 0; j < n / 8; j++) {
    float8 xj = vload8(j, x);
    tmp += vload8(j, ra) * xj;
    yi += vload8(j, rb) * xj;
  }
  float8 s = alpha * tmp + beta * yi;
  float4 h = s.lo + s.hi;
  float2 q = h.lo + h.hi;
  y[i] = q.x + q.y;
}

/* atax_kernel1: tmp = A x, one work-item per row of A [m][n] */
kernel void atax_kernel1(global float *restrict tmp, const global float *restrict a, const global float *restrict x,
                         int n) {
  int i = get_global_id(0);
  const global float *ra = a + (size_t)i * n;
  float s = 0.0f;
  for (int j = 0; j < n; j++) s += ra[j] * x[j];
  tmp[i] = s;
}

/* atax_kernel2: y = A^T tmp, one work-item per column of A */
kernel void atax_kernel2(global float *restrict y, const global float *restrict a, const global float *restrict tmp,
                         int m, int n) {
  int j = get_global_id(0);
  float s = 0.0f;
  for (int i = 0; i < m; i++) s += a[(size_t)i * n + j] * tmp[i];
  y[j] = s;
}

/* atax_kernel1_vec, atax_kernel2_vec: the two kernels with float8 sums,
 * as gesummv_vec: the first's row in eight partial sums; the second's
 * work-item takes eight adjacent columns (a row of A gives it one float8),
 * so that it reads whole cache lines where atax_kernel2's work-item reads
 * one float of each (global size n / 8).  n % 8 == 0. */
kernel void atax_kernel1_vec(global float *restrict tmp, const global float *restrict a,
                             const global float *restrict x, int n) {
  int i = get_global_id(0);
  const global float *ra = a + (size_t)i * n;
  float8 s = (float8)(0.0f);
  for (int j = 0; j < n / 8; j++) s += vload8(j, ra) * vload8(j, x);
  float4 h = s.lo + s.hi;
  float2 q = h.lo + h.hi;
  tmp[i] = q.x + q.y;
}

kernel void atax_kernel2_vec(global float *restrict y, const global float *restrict a,
                             const global float *restrict tmp, int m, int n) {
  int j = get_global_id(0);
  float8 s = (float8)(0.0f);
  for (int i = 0; i < m; i++) s += vload8(j, a + (size_t)i * n) * tmp[i];
  vstore8(s, j, y);
}

/* ---- nearest neighbour (Rodinia nn, NearestNeighbor) ----
 * The distance of every record to the target (lat, lng). */
typedef struct latLong {
  float lat;
  float lng;
} LatLong;

kernel void NearestNeighbor(global float *restrict d_distances, const global LatLong *restrict d_locations,
                            const int numRecords, const float lat, const float lng) {
  int globalId = get_global_id(0);
  if (globalId < numRecords) {
    const global LatLong *latLong = d_locations + globalId;
    d_distances[globalId] =
        sqrt((lat - latLong->lat) * (lat - latLong->lat) + (lng - latLong->lng) * (lng - latLong->lng));
  }
}

/* the same without the guard, launched with exactly numRecords
 * work-items: on PoCL the guard keeps the work-item loop from being
 * vectorised as straight-line code */
kernel void NearestNeighborExact(global float *restrict d_distances, const global LatLong *restrict d_locations,
                                 const float lat, const float lng) {
  int globalId = get_global_id(0);
  const global LatLong *latLong = d_locations + globalId;
  d_distances[globalId] =
      sqrt((lat - latLong->lat) * (lat - latLong->lat) + (lng - latLong->lng) * (lng - latLong->lng));
}

/* kmeans_vec: kmeans_kernel_c as one would write it for a CPU device,
 * where a work-item's loop runs in one SIMD lane unless it says otherwise:
 * eight points a work-item, their features as float8 (a row of feature
 * holds one feature of every point), the nearest centre chosen lane by
 * lane by the mask of a vector comparison (global size npoints / 8). */
kernel void kmeans_vec(global int *restrict membership, const global float *restrict feature,
                       const global float *restrict clusters, int npoints, int nclusters, int nfeatures) {
  int g = get_global_id(0);
  int8 index = (int8)(0);
  float8 min_dist = (float8)(FLT_MAX);
  for (int i = 0; i < nclusters; i++) {
    float8 ans = (float8)(0.0f);
    for (int l = 0; l < nfeatures; l++) {
      float8 d = vload8(g, feature + (size_t)l * npoints) - clusters[i * nfeatures + l];
      ans += d * d;
    }
    int8 closer = ans < min_dist;
    min_dist = select(min_dist, ans, closer);
    index = select(index, (int8)(i), closer);
  }
  vstore8(index, g, membership);
}

/* ---- MRI-Q (Parboil mri-q, ComputeQ_GPU) ----
 * One work-item per voxel, all numK samples in one launch (Parboil
 * launches once per chunk of the samples that fits in constant memory,
 * adding to Qr and Qi in global memory); out holds (Qr, Qi) pairs, as the
 * dpia kernel writes them, where Parboil writes two buffers. */
#define PIx2 6.2831853071795864769252867665590058f

struct kValues {
  float Kx;
  float Ky;
  float Kz;
  float PhiMag;
};

/* one voxel's (Qr, Qi): ComputeQ_GPU's loop, shared by its two forms below */
float2 computeQ(float sX, float sY, float sZ, const global struct kValues *restrict ck, int numK) {
  float sQr = 0.0f, sQi = 0.0f;
  for (int kIndex = 0; kIndex < numK; kIndex++) {
    float expArg = PIx2 * (ck[kIndex].Kx * sX + ck[kIndex].Ky * sY + ck[kIndex].Kz * sZ);
    float cosArg = cos(expArg);
    float sinArg = sin(expArg);
    sQr += ck[kIndex].PhiMag * cosArg;
    sQi += ck[kIndex].PhiMag * sinArg;
  }
  return (float2)(sQr, sQi);
}

kernel void ComputeQ_GPU(global float2 *restrict q, const global float *restrict x, const global float *restrict y,
                         const global float *restrict z, const global struct kValues *restrict ck, int numK) {
  int xIndex = get_global_id(0);
  q[xIndex] = computeQ(x[xIndex], y[xIndex], z[xIndex], ck, numK);
}

/* ComputeQ_GPU with Parboil's interface: Qr and Qi in two buffers (Parboil
 * 2.5, benchmarks/mri-q/src/opencl_base/kernels.cl), as samples/mriq.dpia's
 * mriqTwo writes them (outputs first here too) */
kernel void ComputeQ_GPU_two(global float *restrict Qr, global float *restrict Qi, const global float *restrict x,
                             const global float *restrict y, const global float *restrict z,
                             const global struct kValues *restrict ck, int numK) {
  int xIndex = get_global_id(0);
  float2 q = computeQ(x[xIndex], y[xIndex], z[xIndex], ck, numK);
  Qr[xIndex] = q.x;
  Qi[xIndex] = q.y;
}

/* ComputeQ_vec: ComputeQ_GPU as one would write it for a CPU device,
 * where a work-item's loop runs in one SIMD lane unless it says otherwise:
 * eight voxels a work-item, their coordinates as float8, so that cos and
 * sin run on eight exponents at once (global size numX / 8). */
kernel void ComputeQ_vec(global float2 *restrict q, const global float *restrict x, const global float *restrict y,
                         const global float *restrict z, const global struct kValues *restrict ck, int numK) {
  int g = get_global_id(0);
  float8 sX = vload8(g, x), sY = vload8(g, y), sZ = vload8(g, z);
  float8 sQr = (float8)(0.0f), sQi = (float8)(0.0f);
  for (int kIndex = 0; kIndex < numK; kIndex++) {
    float8 expArg = PIx2 * (ck[kIndex].Kx * sX + ck[kIndex].Ky * sY + ck[kIndex].Kz * sZ);
    sQr += ck[kIndex].PhiMag * cos(expArg);
    sQi += ck[kIndex].PhiMag * sin(expArg);
  }
  float *r = (float *)&sQr, *i = (float *)&sQi;
  for (int k = 0; k < 8; k++) q[8 * g + k] = (float2)(r[k], i[k]);
}

/* ---- K-means, the assignment step (Rodinia kmeans, kmeans_kernel_c) ----
 * feature is [nfeatures][npoints] (Rodinia's kmeans_swap has transposed
 * it), clusters [nclusters][nfeatures]; membership the index of the
 * nearest centre (the first of equally near ones). */
kernel void kmeans_kernel_c(global int *restrict membership, const global float *restrict feature,
                            const global float *restrict clusters, int npoints, int nclusters, int nfeatures) {
  int point_id = get_global_id(0);
  int index = 0;
  float min_dist = FLT_MAX;
  for (int i = 0; i < nclusters; i++) {
    float ans = 0.0f;
    for (int l = 0; l < nfeatures; l++) {
      float d = feature[l * npoints + point_id] - clusters[i * nfeatures + l];
      ans += d * d;
    }
    if (ans < min_dist) {
      min_dist = ans;
      index = i;
    }
  }
  membership[point_id] = index;
}

/* ---- Scan (SHOC scan, bottom_scan) ----
 * The last of SHOC's three scan kernels: each work-group scans its region
 * of the input, float4 a work-item in windows of 4 x the local size, seeded
 * with the group's entry of isums (top_scan's exclusive scan of the
 * regions' sums) and, from window to window, with the last work-item's
 * total.  out is the inclusive scan of in.  scanLocalMem is SHOC's
 * Kogge-Stone scan of one value a work-item in local memory (lmem holds
 * twice the local size): exclusive = 1 gives the exclusive scan. */
float scanLocalMem(float val, local float *lmem, int exclusive) {
  int idx = get_local_id(0);
  lmem[idx] = 0.0f;
  idx += get_local_size(0);
  lmem[idx] = val;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = 1; i < (int)get_local_size(0); i *= 2) {
    float t = lmem[idx - i];
    barrier(CLK_LOCAL_MEM_FENCE);
    lmem[idx] += t;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  return lmem[idx - exclusive];
}

kernel void bottom_scan(global float *restrict out, const global float *restrict in,
                        const global float *restrict isums, int n, local float *lmem) {
  local float s_seed;
  const global float4 *in4 = (const global float4 *)in;
  global float4 *out4 = (global float4 *)out;
  int n4 = n / 4;
  int region_size = n4 / get_num_groups(0);
  int block_start = get_group_id(0) * region_size;
  int block_stop = get_group_id(0) == get_num_groups(0) - 1 ? n4 : block_start + region_size;
  int i = block_start + get_local_id(0);
  int window = block_start;
  float seed = isums[get_group_id(0)];
  while (window < block_stop) {
    float4 val_4 = i < block_stop ? in4[i] : (float4)(0.0f);
    /* the serial scan in registers */
    val_4.y += val_4.x;
    val_4.z += val_4.y;
    val_4.w += val_4.z;
    /* the exclusive scan of the work-items' totals */
    float res = scanLocalMem(val_4.w, lmem, 1);
    val_4 += (float4)(res + seed);
    if (i < block_stop) out4[i] = val_4;
    /* the next window's seed: the last work-item's total */
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == get_local_size(0) - 1) s_seed = val_4.w;
    barrier(CLK_LOCAL_MEM_FENCE);
    seed = s_seed;
    window += get_local_size(0);
    i += get_local_size(0);
  }
}

/* ---- SpMV (SHOC spmv, CSR) ----
 * SHOC's spmv_csr_scalar_kernel and spmv_csr_vector_kernel (src/opencl/
 * level1/spmv/spmv.cl), in float.  Row r of the matrix is the elements
 * rowDelimiters[r] .. rowDelimiters[r+1]-1 of cols (columns) and val
 * (values).  csr_scalar: a work-item a row.  csr_vector: VEC_WIDTH
 * work-items a row (SHOC's warp), each summing every VEC_WIDTH-th element
 * of it from its own, the partial sums reduced in local memory
 * (partialSums, a float a work-item), halving.  SHOC's kernel waits at
 * its barriers inside `if (myRow < dim)`; here every work-item reaches
 * them (rows beyond dim sum nothing), which OpenCL requires. */
#define VEC_WIDTH 32

kernel void spmv_csr_scalar(global float *restrict out, const global float *restrict val,
                            const global float *restrict vec, const global int *restrict cols,
                            const global int *restrict rowDelimiters, int dim) {
  int myRow = get_global_id(0);
  if (myRow < dim) {
    float t = 0.0f;
    int start = rowDelimiters[myRow];
    int end = rowDelimiters[myRow + 1];
    for (int j = start; j < end; j++) t += val[j] * vec[cols[j]];
    out[myRow] = t;
  }
}

kernel void spmv_csr_vector(global float *restrict out, const global float *restrict val,
                            const global float *restrict vec, const global int *restrict cols,
                            const global int *restrict rowDelimiters, int dim, local volatile float *partialSums) {
  int t = get_local_id(0);
  int id = t & (VEC_WIDTH - 1);
  int vecsPerBlock = get_local_size(0) / VEC_WIDTH;
  int myRow = get_group_id(0) * vecsPerBlock + t / VEC_WIDTH;
  float mySum = 0.0f;
  if (myRow < dim) {
    int vecEnd = rowDelimiters[myRow + 1];
    for (int j = rowDelimiters[myRow] + id; j < vecEnd; j += VEC_WIDTH) mySum += val[j] * vec[cols[j]];
  }
  partialSums[t] = mySum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int bar = VEC_WIDTH / 2; bar > 0; bar /= 2) {
    if (id < bar) partialSums[t] += partialSums[t + bar];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (myRow < dim && id == 0) out[myRow] = partialSums[t];
}

/* ---- HotSpot3D (Rodinia 3.1, opencl/hotspot3D/hotspotKernel.cl, hotspotOpt1) ----
 * One time step of the 3D thermal simulation: a work-item a column (x, y)
 * of the nz layers, walking z with the temperatures of layers z-1, z, z+1
 * in registers (temp1, temp2, temp3), one new load of them a step, the
 * neighbours in the layer clamped at the chip's edges, the layers below
 * the first and above the last clamped too.  The output first, as every
 * kernel here (Rodinia's tOut is its third parameter). */
kernel void hotspotOpt1(global float *restrict tOut, const global float *restrict p,
                        const global float *restrict tIn, float sdc, int nx, int ny, int nz, float ce, float cw,
                        float cn, float cs, float ct, float cb, float cc) {
  float amb_temp = 80.0f;
  int i = get_global_id(0);
  int j = get_global_id(1);
  int c = i + j * nx;
  int xy = nx * ny;
  int W = (i == 0) ? c : c - 1;
  int E = (i == nx - 1) ? c : c + 1;
  int N = (j == 0) ? c : c - nx;
  int S = (j == ny - 1) ? c : c + nx;
  float temp1, temp2, temp3;
  temp1 = temp2 = tIn[c];
  temp3 = tIn[c + xy];
  tOut[c] = cc * temp2 + cw * tIn[W] + ce * tIn[E] + cs * tIn[S] + cn * tIn[N] + cb * temp1 + ct * temp3 +
            sdc * p[c] + ct * amb_temp;
  c += xy;
  W += xy;
  E += xy;
  N += xy;
  S += xy;
  for (int k = 1; k < nz - 1; ++k) {
    temp1 = temp2;
    temp2 = temp3;
    temp3 = tIn[c + xy];
    tOut[c] = cc * temp2 + cw * tIn[W] + ce * tIn[E] + cs * tIn[S] + cn * tIn[N] + cb * temp1 + ct * temp3 +
              sdc * p[c] + ct * amb_temp;
    c += xy;
    W += xy;
    E += xy;
    N += xy;
    S += xy;
  }
  temp1 = temp2;
  temp2 = temp3;
  tOut[c] = cc * temp2 + cw * tIn[W] + ce * tIn[E] + cs * tIn[S] + cn * tIn[N] + cb * temp1 + ct * temp3 +
            sdc * p[c] + ct * amb_temp;
}

/* ---- PolyBench/GPU 1.0: covariance and correlation ----
 * PolyBench/GPU 1.0 (Grauer-Gray, Killian, Searles, Cavazos, Pouchet;
 * BSD-style licence, http://www.cse.ohio-state.edu/~pouchet/software/
 * polybench/GPU), datamining/covariance/covariance.cl (mean_kernel,
 * reduce_kernel, covar_kernel) and datamining/correlation/correlation.cl
 * (mean_kernel, std_kernel, reduce_kernel, corr_kernel), in float (its
 * DATA_TYPE).  data is [n][m], a column a variable.  As everywhere in this
 * file: the output is the first argument, and a sum PolyBench adds into
 * its global element (mean[j] +=, symmat[j1*m + j2] +=) is kept in a
 * private accumulator and stored once.  reduce_kernel updates data in
 * place, as PolyBench's.  mean_kernel is the same in the two files. */
kernel void mean_kernel(global float *restrict mean, const global float *restrict data, float float_n, int m, int n) {
  int j = get_global_id(0);
  if (j < m) {
    float s = 0.0f;
    for (int i = 0; i < n; i++) s += data[i * m + j];
    mean[j] = s / float_n;
  }
}

/* covariance.cl's reduce_kernel: a work-item an element */
kernel void covar_reduce_kernel(global float *restrict data, const global float *restrict mean, int m, int n) {
  int j = get_global_id(0), i = get_global_id(1);
  if (i < n && j < m) data[i * m + j] -= mean[j];
}

/* covar_kernel: a work-item a column j1, the dot products with the
 * columns j2 >= j1, each stored at (j1, j2) and (j2, j1) */
kernel void covar_kernel(global float *restrict symmat, const global float *restrict data, int m, int n) {
  int j1 = get_global_id(0);
  if (j1 < m) {
    for (int j2 = j1; j2 < m; j2++) {
      float s = 0.0f;
      for (int i = 0; i < n; i++) s += data[i * m + j1] * data[i * m + j2];
      symmat[j1 * m + j2] = s;
      symmat[j2 * m + j1] = s;
    }
  }
}

/* correlation.cl's std_kernel: a column's standard deviation, 1 where it
 * is at most eps */
kernel void std_kernel(global float *restrict std, const global float *restrict mean, const global float *restrict data,
                       float float_n, float eps, int m, int n) {
  int j = get_global_id(0);
  if (j < m) {
    float s = 0.0f;
    for (int i = 0; i < n; i++) s += (data[i * m + j] - mean[j]) * (data[i * m + j] - mean[j]);
    s = sqrt(s / float_n);
    std[j] = s <= eps ? 1.0f : s;
  }
}

/* correlation.cl's reduce_kernel: an element centred and scaled */
kernel void corr_reduce_kernel(global float *restrict data, const global float *restrict mean,
                               const global float *restrict std, float float_n, int m, int n) {
  int j = get_global_id(0), i = get_global_id(1);
  if (i < n && j < m) {
    data[i * m + j] -= mean[j];
    data[i * m + j] /= sqrt(float_n) * std[j];
  }
}

/* correlation.cl's four kernels on PolyBench's own layout of the data:
 * rows of m + 1 floats (PolyBench's arrays are 1-based, (n+1) x (m+1);
 * here row i's elements 0 .. m-1, element m unused), so that a column's
 * elements are not 4096 bytes apart at m = 1024 (BENCHMARKS.md,
 * "Correlation: the rows of m + 1").  Otherwise the kernels above, line
 * for line; symmat stays [m][m], the output both sides write. */
kernel void mean_kernel_pad(global float *restrict mean, const global float *restrict data, float float_n, int m,
                            int n) {
  int j = get_global_id(0);
  if (j < m) {
    float s = 0.0f;
    for (int i = 0; i < n; i++) s += data[i * (m + 1) + j];
    mean[j] = s / float_n;
  }
}

kernel void std_kernel_pad(global float *restrict std, const global float *restrict mean,
                           const global float *restrict data, float float_n, float eps, int m, int n) {
  int j = get_global_id(0);
  if (j < m) {
    float s = 0.0f;
    for (int i = 0; i < n; i++) s += (data[i * (m + 1) + j] - mean[j]) * (data[i * (m + 1) + j] - mean[j]);
    s = sqrt(s / float_n);
    std[j] = s <= eps ? 1.0f : s;
  }
}

kernel void corr_reduce_kernel_pad(global float *restrict data, const global float *restrict mean,
                                   const global float *restrict std, float float_n, int m, int n) {
  int j = get_global_id(0), i = get_global_id(1);
  if (i < n && j < m) {
    data[i * (m + 1) + j] -= mean[j];
    data[i * (m + 1) + j] /= sqrt(float_n) * std[j];
  }
}

kernel void corr_kernel_pad(global float *restrict symmat, const global float *restrict data, int m, int n) {
  int j1 = get_global_id(0);
  if (j1 == m - 1) symmat[j1 * m + j1] = 1.0f;
  if (j1 < m - 1) {
    symmat[j1 * m + j1] = 1.0f;
    for (int j2 = j1 + 1; j2 < m; j2++) {
      float s = 0.0f;
      for (int i = 0; i < n; i++) s += data[i * (m + 1) + j1] * data[i * (m + 1) + j2];
      symmat[j1 * m + j2] = s;
      symmat[j2 * m + j1] = s;
    }
  }
}

/* corr_kernel: a work-item a column j1 < m - 1, 1 on the diagonal and the
 * dot products with the columns j2 > j1, stored twice.  PolyBench's host
 * sets symmat[m-1][m-1] = 1 after the kernel; here work-item m - 1 does
 * (the output is not initialised by the host). */
kernel void corr_kernel(global float *restrict symmat, const global float *restrict data, int m, int n) {
  int j1 = get_global_id(0);
  if (j1 == m - 1) symmat[j1 * m + j1] = 1.0f;
  if (j1 < m - 1) {
    symmat[j1 * m + j1] = 1.0f;
    for (int j2 = j1 + 1; j2 < m; j2++) {
      float s = 0.0f;
      for (int i = 0; i < n; i++) s += data[i * m + j1] * data[i * m + j2];
      symmat[j1 * m + j2] = s;
      symmat[j2 * m + j1] = s;
    }
  }
}

/* ---- ADI (PolyBench/GPU 1.0, stencils/adi/adi.cl, adi_kernel1) ----
 * The forward sweep along each row, a work-item a row, as PolyBench/GPU
 * writes it: X and B updated in place, element i2 from element i2 - 1 of
 * the same row, which the work-item wrote one step before and reads back
 * from global memory (the pointers are neither const nor restrict, as
 * the original's: X and B are written).  DATA_TYPE is double, as in
 * samples/adi.dpia (PolyBench's DATA_TYPE is a build choice).  The bench
 * restores X and B from the inputs before every run (peer_bench.c). */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void adi_kernel1(global double *A, global double *B, global double *X, int n) {
  int i1 = get_global_id(0);
  if (i1 < n) {
    for (int i2 = 1; i2 < n; i2++) {
      X[i1 * n + i2] = X[i1 * n + i2] - X[i1 * n + (i2 - 1)] * A[i1 * n + i2] / B[i1 * n + (i2 - 1)];
      B[i1 * n + i2] = B[i1 * n + i2] - A[i1 * n + i2] * A[i1 * n + i2] / B[i1 * n + (i2 - 1)];
    }
  }
}

/* ---- SGEMM (SHOC 1.1, src/opencl/level1/gemm/gemmN.cl, sgemmNN) ----
 * SHOC's kernel after Volkov and Demmel (2008; SHOC: BSD licence, Oak
 * Ridge National Laboratory): C = alpha A B + beta C, column-major, a
 * work-group of 16 x 4 computing a 64 x 16 block of C, a work-item a row
 * of it with its 16 sums in registers (c[16]); K walked in tiles of 16,
 * the tile of B staged in local memory (bs, padded to [16][17]), a's next
 * four values loaded while the current four are used (prefetching).  The
 * one change: C is read from Cin and the result written to out (the
 * output first, as samples/sgemm_shoc.dpia's), where SHOC updates C.
 * Global size (M / 4, N / 4), local (16, 4). */
void saxpy16(float a, local const float *bs, float *c) {
#pragma unroll
  for (int j = 0; j < 16; j++) c[j] += a * bs[j];
}

kernel void sgemmNN(global float *restrict out, const global float *restrict A, int lda, const global float *restrict B,
                    int ldb, const global float *restrict Cin, int ldc, int k, float alpha, float beta) {
  const int inx = get_local_id(0), iny = get_local_id(1);
  const int ibx = get_group_id(0) * 64, iby = get_group_id(1) * 16;
  const int id = inx + iny * 16;
  A += ibx + id;
  B += inx + (iby + iny) * ldb;
  int cstart = ibx + id + iby * ldc;
  float c[16];
  for (int i = 0; i < 16; i++) c[i] = 0.0f;
  local float bs[16][17];
  int counter = 0;
  do {
    float a[4];
    for (int i = 0; i < 4; i++) a[i] = A[i * lda];
    bs[inx][iny] = B[0];
    bs[inx][iny + 4] = B[4 * ldb];
    bs[inx][iny + 8] = B[8 * ldb];
    bs[inx][iny + 12] = B[12 * ldb];
    barrier(CLK_LOCAL_MEM_FENCE);
    /* four rows of bs at a time, the next four values of a loaded after
     * each is used (none after the last four); written out whole, as
     * SHOC's sixteen SAXPY lines */
#pragma unroll
    for (int q = 0; q < 4; q++) {
      A += 4 * lda;
#pragma unroll
      for (int i = 0; i < 4; i++) {
        saxpy16(a[i], bs[4 * q + i], c);
        if (q < 3) a[i] = A[i * lda];
      }
    }
    B += 16;
    counter += 16;
    barrier(CLK_LOCAL_MEM_FENCE);
  } while (counter < k);
  for (int i = 0; i < 16; i++) out[cstart + i * ldc] = alpha * c[i] + beta * Cin[cstart + i * ldc];
}

/* ---- CFD flux (Rodinia 3.1, cfd/euler3d.cl, compute_flux) ----
 * Rodinia's kernel with its helpers (compute_velocity, compute_speed_sqd,
 * compute_pressure, compute_speed_of_sound, compute_flux_contribution),
 * the fluxes of the five conserved variables through each element's four
 * faces; the layouts are Rodinia's (variables[i + v*nelr], neighbours
 * [i + j*nelr], normals [i + (j + c*NNB)*nelr], fluxes [i + v*nelr]),
 * which samples/cfd_flux.dpia reads and writes too.  The one change: the
 * fluxes are the first argument. */
#define CFD_GAMMA 1.4f
#define CFD_NNB 4
#define CFD_VAR_DENSITY 0
#define CFD_VAR_MOMENTUM 1
#define CFD_VAR_DENSITY_ENERGY (CFD_VAR_MOMENTUM + 3)

typedef struct {
  float x, y, z;
} FLOAT3;

inline void compute_velocity(float density, FLOAT3 momentum, FLOAT3 *velocity) {
  velocity->x = momentum.x / density;
  velocity->y = momentum.y / density;
  velocity->z = momentum.z / density;
}

inline float compute_speed_sqd(FLOAT3 velocity) {
  return velocity.x * velocity.x + velocity.y * velocity.y + velocity.z * velocity.z;
}

inline float compute_pressure(float density, float density_energy, float speed_sqd) {
  return ((float)(CFD_GAMMA) - (float)(1.0f)) * (density_energy - (float)(0.5f) * density * speed_sqd);
}

inline float compute_speed_of_sound(float density, float pressure) {
  return sqrt((float)(CFD_GAMMA) * pressure / density);
}

inline void compute_flux_contribution(float density, FLOAT3 momentum, float density_energy, float pressure,
                                      FLOAT3 velocity, FLOAT3 *fc_momentum_x, FLOAT3 *fc_momentum_y,
                                      FLOAT3 *fc_momentum_z, FLOAT3 *fc_density_energy) {
  fc_momentum_x->x = velocity.x * momentum.x + pressure;
  fc_momentum_x->y = velocity.x * momentum.y;
  fc_momentum_x->z = velocity.x * momentum.z;
  fc_momentum_y->x = fc_momentum_x->y;
  fc_momentum_y->y = velocity.y * momentum.y + pressure;
  fc_momentum_y->z = velocity.y * momentum.z;
  fc_momentum_z->x = fc_momentum_x->z;
  fc_momentum_z->y = fc_momentum_y->z;
  fc_momentum_z->z = velocity.z * momentum.z + pressure;
  float de_p = density_energy + pressure;
  fc_density_energy->x = velocity.x * de_p;
  fc_density_energy->y = velocity.y * de_p;
  fc_density_energy->z = velocity.z * de_p;
}

kernel void compute_flux(global float *fluxes, global int *elements_surrounding_elements, global float *normals,
                         global float *variables, constant float *ff_variable,
                         constant FLOAT3 *ff_flux_contribution_density_energy,
                         constant FLOAT3 *ff_flux_contribution_momentum_x,
                         constant FLOAT3 *ff_flux_contribution_momentum_y,
                         constant FLOAT3 *ff_flux_contribution_momentum_z, int nelr) {
  const float smoothing_coefficient = (float)(0.2f);
  const int i = get_global_id(0);
  if (i >= nelr) return;
  int j, nb;
  FLOAT3 normal;
  float normal_len;
  float factor;

  float density_i = variables[i + CFD_VAR_DENSITY * nelr];
  FLOAT3 momentum_i;
  momentum_i.x = variables[i + (CFD_VAR_MOMENTUM + 0) * nelr];
  momentum_i.y = variables[i + (CFD_VAR_MOMENTUM + 1) * nelr];
  momentum_i.z = variables[i + (CFD_VAR_MOMENTUM + 2) * nelr];
  float density_energy_i = variables[i + CFD_VAR_DENSITY_ENERGY * nelr];

  FLOAT3 velocity_i;
  compute_velocity(density_i, momentum_i, &velocity_i);
  float speed_sqd_i = compute_speed_sqd(velocity_i);
  float speed_i = sqrt(speed_sqd_i);
  float pressure_i = compute_pressure(density_i, density_energy_i, speed_sqd_i);
  float speed_of_sound_i = compute_speed_of_sound(density_i, pressure_i);
  FLOAT3 flux_contribution_i_momentum_x, flux_contribution_i_momentum_y, flux_contribution_i_momentum_z;
  FLOAT3 flux_contribution_i_density_energy;
  compute_flux_contribution(density_i, momentum_i, density_energy_i, pressure_i, velocity_i,
                            &flux_contribution_i_momentum_x, &flux_contribution_i_momentum_y,
                            &flux_contribution_i_momentum_z, &flux_contribution_i_density_energy);

  float flux_i_density = (float)(0.0f);
  FLOAT3 flux_i_momentum;
  flux_i_momentum.x = (float)(0.0f);
  flux_i_momentum.y = (float)(0.0f);
  flux_i_momentum.z = (float)(0.0f);
  float flux_i_density_energy = (float)(0.0f);

  FLOAT3 velocity_nb;
  float density_nb, density_energy_nb;
  FLOAT3 momentum_nb;
  FLOAT3 flux_contribution_nb_momentum_x, flux_contribution_nb_momentum_y, flux_contribution_nb_momentum_z;
  FLOAT3 flux_contribution_nb_density_energy;
  float speed_sqd_nb, speed_of_sound_nb, pressure_nb;

#pragma unroll
  for (j = 0; j < CFD_NNB; j++) {
    nb = elements_surrounding_elements[i + j * nelr];
    normal.x = normals[i + (j + 0 * CFD_NNB) * nelr];
    normal.y = normals[i + (j + 1 * CFD_NNB) * nelr];
    normal.z = normals[i + (j + 2 * CFD_NNB) * nelr];
    normal_len = sqrt(normal.x * normal.x + normal.y * normal.y + normal.z * normal.z);

    if (nb >= 0) { /* a legitimate neighbour */
      density_nb = variables[nb + CFD_VAR_DENSITY * nelr];
      momentum_nb.x = variables[nb + (CFD_VAR_MOMENTUM + 0) * nelr];
      momentum_nb.y = variables[nb + (CFD_VAR_MOMENTUM + 1) * nelr];
      momentum_nb.z = variables[nb + (CFD_VAR_MOMENTUM + 2) * nelr];
      density_energy_nb = variables[nb + CFD_VAR_DENSITY_ENERGY * nelr];
      compute_velocity(density_nb, momentum_nb, &velocity_nb);
      speed_sqd_nb = compute_speed_sqd(velocity_nb);
      pressure_nb = compute_pressure(density_nb, density_energy_nb, speed_sqd_nb);
      speed_of_sound_nb = compute_speed_of_sound(density_nb, pressure_nb);
      compute_flux_contribution(density_nb, momentum_nb, density_energy_nb, pressure_nb, velocity_nb,
                                &flux_contribution_nb_momentum_x, &flux_contribution_nb_momentum_y,
                                &flux_contribution_nb_momentum_z, &flux_contribution_nb_density_energy);

      /* artificial viscosity */
      factor = -normal_len * smoothing_coefficient * (float)(0.5f) *
               (speed_i + sqrt(speed_sqd_nb) + speed_of_sound_i + speed_of_sound_nb);
      flux_i_density += factor * (density_i - density_nb);
      flux_i_density_energy += factor * (density_energy_i - density_energy_nb);
      flux_i_momentum.x += factor * (momentum_i.x - momentum_nb.x);
      flux_i_momentum.y += factor * (momentum_i.y - momentum_nb.y);
      flux_i_momentum.z += factor * (momentum_i.z - momentum_nb.z);

      /* accumulate cell-centred fluxes */
      factor = (float)(0.5f) * normal.x;
      flux_i_density += factor * (momentum_nb.x + momentum_i.x);
      flux_i_density_energy += factor * (flux_contribution_nb_density_energy.x + flux_contribution_i_density_energy.x);
      flux_i_momentum.x += factor * (flux_contribution_nb_momentum_x.x + flux_contribution_i_momentum_x.x);
      flux_i_momentum.y += factor * (flux_contribution_nb_momentum_y.x + flux_contribution_i_momentum_y.x);
      flux_i_momentum.z += factor * (flux_contribution_nb_momentum_z.x + flux_contribution_i_momentum_z.x);

      factor = (float)(0.5f) * normal.y;
      flux_i_density += factor * (momentum_nb.y + momentum_i.y);
      flux_i_density_energy += factor * (flux_contribution_nb_density_energy.y + flux_contribution_i_density_energy.y);
      flux_i_momentum.x += factor * (flux_contribution_nb_momentum_x.y + flux_contribution_i_momentum_x.y);
      flux_i_momentum.y += factor * (flux_contribution_nb_momentum_y.y + flux_contribution_i_momentum_y.y);
      flux_i_momentum.z += factor * (flux_contribution_nb_momentum_z.y + flux_contribution_i_momentum_z.y);

      factor = (float)(0.5f) * normal.z;
      flux_i_density += factor * (momentum_nb.z + momentum_i.z);
      flux_i_density_energy += factor * (flux_contribution_nb_density_energy.z + flux_contribution_i_density_energy.z);
      flux_i_momentum.x += factor * (flux_contribution_nb_momentum_x.z + flux_contribution_i_momentum_x.z);
      flux_i_momentum.y += factor * (flux_contribution_nb_momentum_y.z + flux_contribution_i_momentum_y.z);
      flux_i_momentum.z += factor * (flux_contribution_nb_momentum_z.z + flux_contribution_i_momentum_z.z);
    } else if (nb == -1) { /* a wing boundary */
      flux_i_momentum.x += normal.x * pressure_i;
      flux_i_momentum.y += normal.y * pressure_i;
      flux_i_momentum.z += normal.z * pressure_i;
    } else if (nb == -2) { /* a far field boundary */
      factor = (float)(0.5f) * normal.x;
      flux_i_density += factor * (ff_variable[CFD_VAR_MOMENTUM + 0] + momentum_i.x);
      flux_i_density_energy += factor * (ff_flux_contribution_density_energy[0].x + flux_contribution_i_density_energy.x);
      flux_i_momentum.x += factor * (ff_flux_contribution_momentum_x[0].x + flux_contribution_i_momentum_x.x);
      flux_i_momentum.y += factor * (ff_flux_contribution_momentum_y[0].x + flux_contribution_i_momentum_y.x);
      flux_i_momentum.z += factor * (ff_flux_contribution_momentum_z[0].x + flux_contribution_i_momentum_z.x);

      factor = (float)(0.5f) * normal.y;
      flux_i_density += factor * (ff_variable[CFD_VAR_MOMENTUM + 1] + momentum_i.y);
      flux_i_density_energy += factor * (ff_flux_contribution_density_energy[0].y + flux_contribution_i_density_energy.y);
      flux_i_momentum.x += factor * (ff_flux_contribution_momentum_x[0].y + flux_contribution_i_momentum_x.y);
      flux_i_momentum.y += factor * (ff_flux_contribution_momentum_y[0].y + flux_contribution_i_momentum_y.y);
      flux_i_momentum.z += factor * (ff_flux_contribution_momentum_z[0].y + flux_contribution_i_momentum_z.y);

      factor = (float)(0.5f) * normal.z;
      flux_i_density += factor * (ff_variable[CFD_VAR_MOMENTUM + 2] + momentum_i.z);
      flux_i_density_energy += factor * (ff_flux_contribution_density_energy[0].z + flux_contribution_i_density_energy.z);
      flux_i_momentum.x += factor * (ff_flux_contribution_momentum_x[0].z + flux_contribution_i_momentum_x.z);
      flux_i_momentum.y += factor * (ff_flux_contribution_momentum_y[0].z + flux_contribution_i_momentum_y.z);
      flux_i_momentum.z += factor * (ff_flux_contribution_momentum_z[0].z + flux_contribution_i_momentum_z.z);
    }
  }

  fluxes[i + CFD_VAR_DENSITY * nelr] = flux_i_density;
  fluxes[i + (CFD_VAR_MOMENTUM + 0) * nelr] = flux_i_momentum.x;
  fluxes[i + (CFD_VAR_MOMENTUM + 1) * nelr] = flux_i_momentum.y;
  fluxes[i + (CFD_VAR_MOMENTUM + 2) * nelr] = flux_i_momentum.z;
  fluxes[i + CFD_VAR_DENSITY_ENERGY * nelr] = flux_i_density_energy;
}

/* ---- LU decomposition (Rodinia 3.1, opencl/lud/ocl/lud_kernel.cl:
 * lud_diagonal, lud_perimeter, lud_internal, BLOCK_SIZE 16) ----
 * Rodinia (Che et al., University of Virginia; BSD-style licence,
 * rodinia_3.1/LICENSE).  One step of the blocked factorisation at the
 * offset `offset` of an n x n matrix m (matrix_dim).  Rodinia's kernels
 * take their local arrays as arguments; here the local arrays are declared
 * in the kernels.  The three update m in place, as Rodinia's and as their
 * samples/lud.dpia kernels (lud_diagonal writes back rows 1 .. 15 of the
 * block: row 0 is U's as it was; lud_perimeter rows 1 .. 15 of the row
 * block, row 0 being its own solution).  The loops and barriers are
 * Rodinia's. */
#define LUD_BS 16

kernel void lud_diagonal(global float *m, int matrix_dim, int offset) {
  local float shadow[LUD_BS * LUD_BS];
  int tx = get_local_id(0);
  int array_offset = offset * matrix_dim + offset;
  for (int i = 0; i < LUD_BS; i++) {
    shadow[i * LUD_BS + tx] = m[array_offset + tx];
    array_offset += matrix_dim;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = 0; i < LUD_BS - 1; i++) {
    if (tx > i) {
      for (int j = 0; j < i; j++) shadow[tx * LUD_BS + i] -= shadow[tx * LUD_BS + j] * shadow[j * LUD_BS + i];
      shadow[tx * LUD_BS + i] /= shadow[i * LUD_BS + i];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (tx > i) {
      for (int j = 0; j < i + 1; j++)
        shadow[(i + 1) * LUD_BS + tx] -= shadow[(i + 1) * LUD_BS + j] * shadow[j * LUD_BS + tx];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  array_offset = (offset + 1) * matrix_dim + offset;
  for (int i = 1; i < LUD_BS; i++) {
    m[array_offset + tx] = shadow[i * LUD_BS + tx];
    array_offset += matrix_dim;
  }
}

/* 2 x 16 work-items a group (Rodinia: 32, tx < 16 the row block's) */
kernel void lud_perimeter(global float *m, int matrix_dim, int offset) {
  local float dia[LUD_BS * LUD_BS], peri_row[LUD_BS * LUD_BS], peri_col[LUD_BS * LUD_BS];
  int bx = get_group_id(0);
  int tx = get_local_id(0);
  int array_offset, idx;
  if (tx < LUD_BS) {
    idx = tx;
    array_offset = offset * matrix_dim + offset;
    for (int i = 0; i < LUD_BS / 2; i++) {
      dia[i * LUD_BS + idx] = m[array_offset + idx];
      array_offset += matrix_dim;
    }
    array_offset = offset * matrix_dim + offset;
    for (int i = 0; i < LUD_BS; i++) {
      peri_row[i * LUD_BS + idx] = m[array_offset + (bx + 1) * LUD_BS + idx];
      array_offset += matrix_dim;
    }
  } else {
    idx = tx - LUD_BS;
    array_offset = (offset + LUD_BS / 2) * matrix_dim + offset;
    for (int i = LUD_BS / 2; i < LUD_BS; i++) {
      dia[i * LUD_BS + idx] = m[array_offset + idx];
      array_offset += matrix_dim;
    }
    array_offset = (offset + (bx + 1) * LUD_BS) * matrix_dim + offset;
    for (int i = 0; i < LUD_BS; i++) {
      peri_col[i * LUD_BS + idx] = m[array_offset + idx];
      array_offset += matrix_dim;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (tx < LUD_BS) { /* peri-row */
    idx = tx;
    for (int i = 1; i < LUD_BS; i++)
      for (int j = 0; j < i; j++) peri_row[i * LUD_BS + idx] -= dia[i * LUD_BS + j] * peri_row[j * LUD_BS + idx];
  } else { /* peri-col */
    idx = tx - LUD_BS;
    for (int i = 0; i < LUD_BS; i++) {
      for (int j = 0; j < i; j++) peri_col[idx * LUD_BS + i] -= peri_col[idx * LUD_BS + j] * dia[j * LUD_BS + i];
      peri_col[idx * LUD_BS + i] /= dia[i * LUD_BS + i];
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (tx < LUD_BS) {
    idx = tx;
    array_offset = (offset + 1) * matrix_dim + offset;
    for (int i = 1; i < LUD_BS; i++) {
      m[array_offset + (bx + 1) * LUD_BS + idx] = peri_row[i * LUD_BS + idx];
      array_offset += matrix_dim;
    }
  } else {
    idx = tx - LUD_BS;
    array_offset = (offset + (bx + 1) * LUD_BS) * matrix_dim + offset;
    for (int i = 0; i < LUD_BS; i++) {
      m[array_offset + idx] = peri_col[i * LUD_BS + idx];
      array_offset += matrix_dim;
    }
  }
}

/* 16 x 16 work-items a group, one a block of the trailing matrix */
kernel void lud_internal(global float *m, int matrix_dim, int offset) {
  local float peri_row[LUD_BS * LUD_BS], peri_col[LUD_BS * LUD_BS];
  int bx = get_group_id(0), by = get_group_id(1);
  int tx = get_local_id(0), ty = get_local_id(1);
  int global_row_id = offset + (by + 1) * LUD_BS;
  int global_col_id = offset + (bx + 1) * LUD_BS;
  peri_row[ty * LUD_BS + tx] = m[(offset + ty) * matrix_dim + global_col_id + tx];
  peri_col[ty * LUD_BS + tx] = m[(global_row_id + ty) * matrix_dim + offset + tx];
  barrier(CLK_LOCAL_MEM_FENCE);
  float sum = 0;
  for (int i = 0; i < LUD_BS; i++) sum += peri_col[ty * LUD_BS + i] * peri_row[i * LUD_BS + tx];
  m[(global_row_id + ty) * matrix_dim + global_col_id + tx] -= sum;
}
